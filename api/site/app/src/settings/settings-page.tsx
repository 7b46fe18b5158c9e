/** Settings (being built). */
export function SettingsPage() {
  return <h1>Settings</h1>;
}
