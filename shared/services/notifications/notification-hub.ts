import type { Redis } from 'ioredis';
import type { Logger } from '../../logger.js';
import type { NotificationEvent, NotificationMessage } from './notification.service.js';

type Listener = (event: NotificationEvent) => void;
interface Subscription {
  listener: Listener;
  /** called when the hub stops, so the stream ends instead of holding its connection open */
  end: () => void;
}

/**
 * One Redis subscription per web process, fanned out to the open streams of each account, so a
 * thousand streams cost one connection. Streams unregister when they close.
 */
export class NotificationHub {
  private readonly listeners = new Map<string, Set<Subscription>>();
  private stopped = false;

  constructor(
    private readonly subscriber: Redis,
    private readonly channel: string,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      let parsed: NotificationMessage;
      try {
        parsed = JSON.parse(message) as NotificationMessage;
      } catch (err) {
        this.logger.warn({ err }, 'bad notification message');
        return;
      }
      if (parsed.kind !== 'broadcast') return this.deliver(parsed);
      const { shared, recipients } = parsed;
      for (const [accountId, id, seq, unreadCount] of recipients) {
        if (this.listeners.has(accountId)) this.deliver({ accountId, kind: 'notification', notification: { id, userId: accountId, ...shared }, seq, unreadCount });
      }
    });
    await this.subscriber.subscribe(this.channel);
  }

  /**
   * Calls `listener` with every event of the account until the returned function is called; `end`
   * is called if the hub stops first (the process is shutting down).
   */
  listen(accountId: string, listener: Listener, end: () => void): () => void {
    if (this.stopped) {
      end();
      return () => undefined;
    }
    let set = this.listeners.get(accountId);
    if (!set) this.listeners.set(accountId, (set = new Set()));
    const subscription = { listener, end };
    set.add(subscription);
    return () => {
      set.delete(subscription);
      if (set.size === 0) this.listeners.delete(accountId);
    };
  }

  private deliver(event: NotificationEvent) {
    for (const { listener } of this.listeners.get(event.accountId) ?? []) listener(event);
  }

  /** The account's open streams and drop waiters: tests wait on it before creating events. */
  listenerCount(accountId: string): number {
    return this.listeners.get(accountId)?.size ?? 0;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const subscriptions = [...this.listeners.values()].flatMap((set) => [...set]);
    this.listeners.clear();
    for (const { end } of subscriptions) end();
    this.subscriber.disconnect();
  }
}
