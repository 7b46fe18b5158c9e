import type { Principal } from '../../shared/principal.js';
import type { NotificationHub } from '../../shared/services/notifications/notification-hub.js';
import { type NotificationEvent, type NotificationService, toNotification } from '../../shared/services/notifications/notification.service.js';
import type { AppContext } from '../state.js';

export interface StreamOptions {
  hub: NotificationHub;
  notifications: NotificationService;
  heartbeatMs: number;
}

/** The event id a client sent back on reconnect (header, or query for clients that cannot set one). */
function lastEventIdOf(ctx: AppContext): number | undefined {
  const raw = ctx.get('last-event-id') || (typeof ctx.query.lastEventId === 'string' ? ctx.query.lastEventId : '');
  return /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}

/**
 * Server-sent events of one account: `notification` (the Notification JSON) and `unread`
 * ({unreadCount}), each with an `id:` (the notification sequence), a comment heartbeat, and replay
 * of what was missed after Last-Event-ID. Live events that arrive during the replay are held back
 * and de-duplicated, so nothing is lost or sent twice.
 */
export async function openNotificationStream(ctx: AppContext, account: Principal, options: StreamOptions) {
  const { hub, notifications } = options;
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.req.socket.setKeepAlive(true);
  ctx.status = 200;
  ctx.set({ 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  // Events go straight into the response once the stream starts (Koa leaves it alone then): a
  // PassThrough body piped into it held about twice the memory per open stream, times thousands.
  const res = ctx.res;
  let streaming = false;
  // Set up before the first wait, so a client that leaves at any point frees everything.
  let closed = false;
  let stopListening = () => {};
  let heartbeat: NodeJS.Timeout | undefined;
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    stopListening();
    if (streaming) res.end();
    // Not started: the hub stopped (an empty stream, so the client reconnects) or the client left.
    else ctx.body = '';
  };
  ctx.req.once('close', close);
  // The client may have left already, while the request was being authenticated.
  if (ctx.req.destroyed || ctx.res.destroyed) close();

  // Where this stream starts: after what the client saw, or (a fresh stream) after the newest
  // notification — read before subscribing, so whatever is created meanwhile is replayed below.
  const latest = await notifications.latestSeq(account.id);
  if (closed) return;
  let lastSeq = Math.min(lastEventIdOf(ctx) ?? latest, latest);
  let live = false;
  const held: NotificationEvent[] = [];
  const send = (event: string, data: unknown) => {
    if (!closed) res.write(`id: ${lastSeq}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const deliver = (event: NotificationEvent) => {
    if (event.kind === 'unread') return void send('unread', { unreadCount: event.unreadCount });
    if (event.seq <= lastSeq) return;
    lastSeq = event.seq;
    send('notification', event.notification);
    send('unread', { unreadCount: event.unreadCount });
  };
  stopListening = hub.listen(account.id, (event) => (live ? deliver(event) : held.push(event)), close);
  if (closed) return; // the hub has stopped: the process is shutting down

  let missed: Awaited<ReturnType<NotificationService['missedSince']>>;
  let unreadCount: number;
  try {
    missed = await notifications.missedSince(account.id, lastSeq);
    unreadCount = await notifications.unreadCount(account.id);
  } catch (err) {
    close();
    throw err; // nothing was sent yet: the error answers
  }
  if (closed) return;
  streaming = true;
  ctx.respond = false;
  res.write('retry: 3000\n\n');
  for (const row of missed) {
    lastSeq = row.seq;
    send('notification', toNotification(row));
  }
  send('unread', { unreadCount });
  live = true;
  for (const event of held.splice(0)) deliver(event);
  heartbeat = setInterval(() => res.write(': heartbeat\n\n'), options.heartbeatMs);
}
