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
  /** how long a crashed holder's lock outlives it (default 3 s); a live holder renews its lock every third of this */
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

// Takes a free lock ('OK'), or answers the holder's time left in ms (-2 if it just went).
const TAKE = `if redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 'OK' end return redis.call('pttl', KEYS[1])`;
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

  // A short TTL, kept alive by renewal: an upload whose web process was killed mid-PATCH can be resumed
  // elsewhere after a few seconds, not after half a minute.
  constructor({ redis, subscriber, prefix, ttlMs = 3000, acquireTimeoutMs = 30_000 }: RedisLockerOptions) {
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
      // Waiting starts before the attempt, so a release right after a failed attempt still wakes us.
      const release = this.nextRelease(id, signal);
      try {
        const taken = await this.redis.eval(TAKE, 1, key, token, this.ttlMs);
        if (taken === 'OK') return this.hold(id, token, cancelReq);
        await this.redis.publish(this.releaseRequests, id);
        // A crashed holder never answers: the waiter tries again when its key expires, if that comes first.
        await release.wait(Math.min(this.pollMs, left, Math.max(Number(taken), 0)));
      } finally {
        release.stop();
      }
    }
  }

  /** `wait(ms)` resolves when `id` is released, after `ms`, or when `signal` aborts, whichever comes first. */
  private nextRelease(id: string, signal: AbortSignal): { wait: (ms: number) => Promise<void>; stop: () => void } {
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    let timer: NodeJS.Timeout | undefined;
    signal.addEventListener('abort', wake);
    let wakers = this.waiters.get(id);
    if (!wakers) this.waiters.set(id, (wakers = new Set()));
    wakers.add(wake);
    const wait = (ms: number) => {
      timer = setTimeout(wake, ms);
      return woken;
    };
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
