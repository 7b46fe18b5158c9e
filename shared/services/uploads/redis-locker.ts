import { randomBytes } from 'node:crypto';
import { ERRORS, type Lock, type Locker, type RequestRelease } from '@tus/server';
import type { Redis } from 'ioredis';

export interface RedisLockerOptions {
  /** a command connection: takes, renews and releases locks and publishes */
  redis: Redis;
  /** a connection in subscriber mode; the locker subscribes two channels on it, and it may be shared. Its owner closes it. */
  subscriber: Redis;
  /** prefix of the lock keys (`${prefix}:${uploadId}`) and of the two channels, e.g. `hfs:tus-lock` */
  prefix: string;
  /** how long a crashed holder's lock outlives it; a live holder renews its lock every third of this */
  ttlMs?: number;
  /** how long a request waits for a held lock before ERR_LOCK_TIMEOUT, as MemoryLocker's acquireLockTimeout */
  acquireTimeoutMs?: number;
}

interface Holding {
  id: string;
  token: string;
  cancelReq: RequestRelease;
  renewal: NodeJS.Timeout;
}

const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0`;
// Deletes and announces in one step, so a waiter is never woken for a lock that is not free.
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('del', KEYS[1]) redis.call('publish', ARGV[2], ARGV[3]) return 1 end return 0`;

/**
 * The tus upload locks of all web processes, in Redis. A request that wants a held lock publishes a
 * release request, on which the holder (in whichever process) calls its `cancelReq`; waiters wake on
 * the release message, or at the latest after a poll interval, since pub/sub may drop messages.
 * A holder renews its key while it lives, so only a crashed process's lock expires.
 */
export class RedisLocker implements Locker {
  private readonly redis: Redis;
  private readonly subscriber: Redis;
  private readonly prefix: string;
  private readonly ttlMs: number;
  private readonly acquireTimeoutMs: number;
  private readonly pollMs: number;
  private readonly releaseRequests: string;
  private readonly releases: string;
  /** the locks this process holds, so a release request from any process reaches its holder */
  private readonly held = new Map<string, Holding>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private listening = false;

  constructor({ redis, subscriber, prefix, ttlMs = 30_000, acquireTimeoutMs = 30_000 }: RedisLockerOptions) {
    this.redis = redis;
    this.subscriber = subscriber;
    this.prefix = prefix;
    this.ttlMs = ttlMs;
    this.acquireTimeoutMs = acquireTimeoutMs;
    this.pollMs = Math.min(1000, ttlMs / 3);
    this.releaseRequests = `${prefix}:release-requests`;
    this.releases = `${prefix}:releases`;
  }

  newLock(id: string): Lock {
    this.listen();
    let holding: Holding | undefined;
    return {
      lock: async (signal, cancelReq) => {
        holding = await this.acquire(id, signal, cancelReq);
      },
      unlock: async () => {
        if (!holding) throw new Error('Releasing an unlocked lock!');
        const releasing = holding;
        holding = undefined;
        await this.release(releasing);
      },
    };
  }

  /** Stops renewing (held locks then expire after ttlMs) and leaves the channels; the connections stay open. */
  async close(): Promise<void> {
    for (const holding of this.held.values()) clearInterval(holding.renewal);
    this.held.clear();
    if (!this.listening) return;
    this.listening = false;
    this.subscriber.off('message', this.onMessage);
    // A subscriber its owner is closing (or closed) has nothing left to unsubscribe.
    await this.subscriber.unsubscribe(this.releaseRequests, this.releases).catch(() => undefined);
  }

  private listen(): void {
    if (this.listening) return;
    this.listening = true;
    this.subscriber.on('message', this.onMessage);
    // Not awaited: pub/sub only hastens what polling guarantees, so no request waits on the subscriber.
    this.subscriber.subscribe(this.releaseRequests, this.releases).catch(() => {
      this.listening = false;
      this.subscriber.off('message', this.onMessage);
    });
  }

  private readonly onMessage = (channel: string, id: string) => {
    if (channel === this.releaseRequests) {
      const holding = this.held.get(id);
      if (holding) this.cancel(holding);
    } else if (channel === this.releases) {
      for (const wake of this.waiters.get(id) ?? []) wake();
    }
  };

  private async acquire(id: string, signal: AbortSignal, cancelReq: RequestRelease): Promise<Holding> {
    const key = this.key(id);
    const token = randomBytes(16).toString('hex');
    const deadline = Date.now() + this.acquireTimeoutMs;
    for (;;) {
      const left = deadline - Date.now();
      if (signal.aborted || left <= 0) throw ERRORS.ERR_LOCK_TIMEOUT;
      // Waiting starts before the attempt, so a release right after a failed SET still wakes us.
      const release = this.nextRelease(id, Math.min(this.pollMs, left), signal);
      try {
        if ((await this.redis.set(key, token, 'PX', this.ttlMs, 'NX')) === 'OK') return this.hold(id, token, cancelReq);
        await this.redis.publish(this.releaseRequests, id);
        await release.wait;
      } finally {
        release.stop();
      }
    }
  }

  /** Resolves when `id` is released, after `waitMs`, or when `signal` aborts, whichever comes first. */
  private nextRelease(id: string, waitMs: number, signal: AbortSignal): { wait: Promise<void>; stop: () => void } {
    let wake!: () => void;
    const wait = new Promise<void>((resolve) => (wake = resolve));
    const timer = setTimeout(wake, waitMs);
    signal.addEventListener('abort', wake);
    let wakers = this.waiters.get(id);
    if (!wakers) this.waiters.set(id, (wakers = new Set()));
    wakers.add(wake);
    const stop = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', wake);
      wakers.delete(wake);
      if (wakers.size === 0) this.waiters.delete(id);
    };
    return { wait, stop };
  }

  private hold(id: string, token: string, cancelReq: RequestRelease): Holding {
    const holding: Holding = { id, token, cancelReq, renewal: setInterval(() => void this.renew(holding), this.ttlMs / 3).unref() };
    this.held.set(id, holding);
    return holding;
  }

  private async renew(holding: Holding): Promise<void> {
    let kept: unknown;
    try {
      kept = await this.redis.eval(RENEW, 1, this.key(holding.id), holding.token, this.ttlMs);
    } catch {
      // Redis unreachable: the next tick tries again, and the key outlives a few missed renewals.
      return;
    }
    if (kept === 0) {
      // Expired during a stall and maybe taken by another request: this holder must stop writing.
      this.forget(holding);
      this.cancel(holding);
    }
  }

  private async release(holding: Holding): Promise<void> {
    this.forget(holding);
    await this.redis.eval(RELEASE, 1, this.key(holding.id), holding.token, this.releases, holding.id);
  }

  private forget(holding: Holding): void {
    clearInterval(holding.renewal);
    if (this.held.get(holding.id) === holding) this.held.delete(holding.id);
  }

  private cancel(holding: Holding): void {
    // A failing callback is the holder request's own affair; it must not become an unhandled rejection.
    void Promise.resolve()
      .then(holding.cancelReq)
      .catch(() => undefined);
  }

  private key(id: string): string {
    return `${this.prefix}:${id}`;
  }
}
