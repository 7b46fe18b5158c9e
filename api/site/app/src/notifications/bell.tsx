/** The notifications bell (being built). */
export function NotificationBell() {
  return null;
}
