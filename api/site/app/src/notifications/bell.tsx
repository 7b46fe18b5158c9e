import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { formatDate, webUrl } from '../format.js';
import { onLinkClick } from '../router.js';
import type { AppNotification } from '../types.js';
import { Status } from '../ui.js';
import { listenToNotifications } from './stream.js';

const PANEL_ID = 'notification-panel';
// The API lists the 50 most recent.
const MAX_LISTED = 50;

/** `newer` (newest first) on top of `list`, each notification once. */
function withNewest(list: AppNotification[], newer: AppNotification[]): AppNotification[] {
  const fresh = newer.filter((n) => !list.some((m) => m.id === n.id));
  return fresh.length ? [...fresh, ...list].slice(0, MAX_LISTED) : list;
}

/** A notification's link, if it is a web address (never `javascript:` or the like). */
function linkOf(notification: AppNotification): { href: string; text: string; inApp: boolean } | undefined {
  const { link, linkText } = notification.data;
  const url = webUrl(link);
  if (!url) return undefined;
  const inApp = url.origin === location.origin && url.pathname.startsWith('/dashboard');
  return { href: inApp ? url.pathname + url.search : url.href, text: typeof linkText === 'string' && linkText ? linkText : 'Open', inApp };
}

/**
 * The bell in the header: the unread count, live from the notification stream, and a panel with
 * the 50 most recent notifications; opening one marks it read.
 */
export function NotificationBell() {
  const [unread, setUnread] = useState<number | undefined>(undefined);
  const [open, setOpen] = useState(false);
  const [items, setItems] = useState<AppNotification[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [announcement, setAnnouncement] = useState('');
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  // Notifications that arrive while the list is being read: the answer may have been made before them.
  const earlyRef = useRef<AppNotification[]>([]);

  useEffect(
    () =>
      listenToNotifications({
        unread: setUnread,
        notification: (notification) => {
          setItems((current) => {
            if (!current) earlyRef.current = [notification, ...earlyRef.current].slice(0, MAX_LISTED);
            return current ? withNewest(current, [notification]) : current;
          });
          setAnnouncement(`New notification: ${notification.title}`);
        },
      }),
    [],
  );

  // The list is read when the panel first opens; the stream keeps it current afterwards.
  useEffect(() => {
    if (!open || items) return;
    const controller = new AbortController();
    api<{ data: { notifications: AppNotification[]; unreadCount: number } }>('/user/notifications', { signal: controller.signal }).then(
      ({ data }) => {
        setItems(withNewest(data.notifications, earlyRef.current));
        earlyRef.current = [];
        setUnread(data.unreadCount);
      },
      (err: Error) => err.name !== 'AbortError' && setError(err.message),
    );
    return () => controller.abort();
  }, [open, items]);

  // Escape or a click elsewhere closes the panel.
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    const onPointer = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onPointer);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onPointer);
    };
  }, [open]);

  const markRead = async (notification: AppNotification) => {
    if (notification.read) return;
    setError(undefined);
    setItems((current) => current?.map((n) => (n.id === notification.id ? { ...n, read: true } : n)));
    setUnread((count) => (count === undefined ? count : Math.max(0, count - 1)));
    try {
      // The stream then sends the account's new unread count, which settles the badge.
      await api('/user/notifications/read', { method: 'POST', body: { notificationId: notification.id } });
    } catch (err) {
      setItems((current) => current?.map((n) => (n.id === notification.id ? { ...n, read: false } : n)));
      setUnread((count) => (count === undefined ? count : count + 1));
      setError((err as Error).message);
    }
  };

  const count = unread ?? 0;
  const label = unread === undefined ? 'Notifications' : `Notifications, ${count} unread`;
  return (
    <div class="bell" ref={root}>
      <button
        ref={button}
        type="button"
        class="bell-button"
        aria-label={label}
        aria-expanded={open}
        aria-controls={PANEL_ID}
        onClick={() => setOpen(!open)}
      >
        <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false">
          <path
            fill="currentColor"
            d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2Z"
          />
        </svg>
        {count > 0 && (
          <span class="badge" aria-hidden="true">
            {count > 99 ? '99+' : count}
          </span>
        )}
      </button>
      <p class="sr-only" aria-live="polite">
        {announcement}
      </p>
      {open && (
        <section id={PANEL_ID} class="bell-panel" aria-labelledby={`${PANEL_ID}-title`}>
          <header class="bell-panel-head">
            <h2 id={`${PANEL_ID}-title`}>Notifications</h2>
            <span class="muted">{count === 0 ? 'All read' : `${count} unread`}</span>
          </header>
          {error && <Status error={error} />}
          {!items && !error && <p class="muted">Loading…</p>}
          {items?.length === 0 && <p class="muted">Nothing yet. Notifications about your files and account appear here.</p>}
          {items && items.length > 0 && (
            <ul class="notes">
              {items.map((n) => (
                <NotificationItem key={n.id} notification={n} onRead={() => void markRead(n)} onNavigate={() => setOpen(false)} />
              ))}
            </ul>
          )}
        </section>
      )}
    </div>
  );
}

function NotificationItem({ notification, onRead, onNavigate }: { notification: AppNotification; onRead: () => void; onNavigate: () => void }) {
  const link = linkOf(notification);
  // Marking read swaps the button for plain text: the keyboard stays on the item.
  const main = useRef<HTMLDivElement>(null);
  const hadFocusRef = useRef(false);
  useEffect(() => {
    if (notification.read && hadFocusRef.current) main.current?.focus();
    hadFocusRef.current = false;
  }, [notification.read]);
  const body = (
    <>
      <span class="note-title">
        {!notification.read && <span class="note-new">New</span>}
        {notification.title}
      </span>
      <span class="note-message">{notification.message}</span>
      <time class="note-time muted" dateTime={notification.timestamp}>
        {formatDate(notification.timestamp)}
      </time>
    </>
  );
  return (
    <li class={notification.read ? 'note' : 'note unread'}>
      {notification.read ? (
        <div class="note-main" ref={main} tabIndex={-1}>
          {body}
        </div>
      ) : (
        <button
          type="button"
          class="note-main"
          onClick={(event) => {
            hadFocusRef.current = document.activeElement === event.currentTarget;
            onRead();
          }}
        >
          <span class="sr-only">Mark as read: </span>
          {body}
        </button>
      )}
      {link && (
        <a
          class="note-link"
          href={link.href}
          onClick={(event) => {
            onRead();
            if (link.inApp) {
              onLinkClick(event);
              onNavigate();
            }
          }}
        >
          {link.text}
        </a>
      )}
    </li>
  );
}
