import type { AppNotification } from '../types.js';

// The account's notification stream (server-sent events, the session cookie), shared by every part
// of the page that wants it: one EventSource while anyone listens, closed when the last one leaves.

interface StreamListener {
  /** a new notification (also one missed while disconnected, replayed on reconnect) */
  notification?(notification: AppNotification): void;
  /** the account's unread count, sent on connect and after every change */
  unread?(count: number): void;
}

const STREAM_PATH = '/api/user/notifications/stream';
// When the browser gives up on the stream (an error status rather than a dropped connection).
const REOPEN_AFTER_MS = 15_000;

const listeners = new Set<StreamListener>();
let source: EventSource | undefined;
let reopenTimer: ReturnType<typeof setTimeout> | undefined;
let lastEventId = '';
// The latest count, for a listener that comes after the stream sent it.
let lastUnread: number | undefined;

/** Listens to the stream until the returned function is called. */
export function listenToNotifications(listener: StreamListener): () => void {
  listeners.add(listener);
  if (lastUnread !== undefined) listener.unread?.(lastUnread);
  if (!source && reopenTimer === undefined) open();
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) close();
  };
}

function open(): void {
  reopenTimer = undefined;
  // EventSource resends Last-Event-ID by itself on reconnects; a new one carries it in the query.
  const stream = new EventSource(lastEventId ? `${STREAM_PATH}?lastEventId=${encodeURIComponent(lastEventId)}` : STREAM_PATH);
  source = stream;
  stream.addEventListener('notification', (event) => {
    const message = event as MessageEvent<string>;
    if (message.lastEventId) lastEventId = message.lastEventId;
    const notification = parse<AppNotification>(message.data);
    if (notification) for (const listener of [...listeners]) listener.notification?.(notification);
  });
  stream.addEventListener('unread', (event) => {
    const message = event as MessageEvent<string>;
    if (message.lastEventId) lastEventId = message.lastEventId;
    const count = parse<{ unreadCount: number }>(message.data)?.unreadCount;
    if (typeof count !== 'number') return;
    lastUnread = count;
    for (const listener of [...listeners]) listener.unread?.(count);
  });
  stream.addEventListener('error', () => {
    // CONNECTING: the browser retries by itself. CLOSED: it will not; try again a little later.
    if (stream.readyState !== EventSource.CLOSED || source !== stream) return;
    source = undefined;
    if (listeners.size > 0) reopenTimer = setTimeout(open, REOPEN_AFTER_MS);
  });
}

function close(): void {
  lastUnread = undefined;
  clearTimeout(reopenTimer);
  reopenTimer = undefined;
  source?.close();
  source = undefined;
}

function parse<T>(data: string): T | undefined {
  try {
    return JSON.parse(data) as T;
  } catch {
    return undefined;
  }
}
