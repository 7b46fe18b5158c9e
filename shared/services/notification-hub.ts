import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { NotificationEvent } from './notification.service.js';

type Listener = (event: NotificationEvent) => void;

/**
 * One Redis subscription per web process, fanned out to the open streams of each account, so a
 * thousand streams cost one connection. Streams unregister when they close.
 */
export class NotificationHub {
  private readonly listeners = new Map<string, Set<Listener>>();

  constructor(
    private readonly subscriber: Redis,
    private readonly channel: string,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      let event: NotificationEvent;
      try {
        event = JSON.parse(message) as NotificationEvent;
      } catch (err) {
        this.logger.warn({ err }, 'bad notification message');
        return;
      }
      for (const listener of this.listeners.get(event.accountId) ?? []) listener(event);
    });
    await this.subscriber.subscribe(this.channel);
  }

  /** Calls `listener` with every event of the account until the returned function is called. */
  listen(accountId: string, listener: Listener): () => void {
    let set = this.listeners.get(accountId);
    if (!set) this.listeners.set(accountId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(accountId);
    };
  }

  get openStreams(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  async stop(): Promise<void> {
    this.listeners.clear();
    this.subscriber.disconnect();
  }
}
