import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { ERRORS } from '@tus/server';
import type { Redis } from 'ioredis';
import { createRedis } from '../../shared/redis.js';
import { RedisLocker } from '../../shared/services/uploads/redis-locker.js';
import { testRedisUrl } from '../helpers/engines.js';

/** One web process's view: a locker on connections of its own. */
interface Process {
  locker: RedisLocker;
  redis: Redis;
  subscriber: Redis;
}

describe('RedisLocker (tus upload locks across processes)', () => {
  const prefix = `t${randomBytes(5).toString('hex')}:tus-lock`;
  let admin: Redis;
  let processes: Process[] = [];

  before(async () => {
    admin = createRedis(testRedisUrl());
    await admin.connect();
  });
  afterEach(async () => {
    for (const { locker, redis, subscriber } of processes) {
      // A crashed process's connections are already gone.
      await locker.close().catch(() => undefined);
      redis.disconnect();
      subscriber.disconnect();
    }
    processes = [];
  });
  after(async () => {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
  });

  async function startProcess(options: { ttlMs?: number; acquireTimeoutMs?: number } = {}): Promise<Process> {
    const redis = createRedis(testRedisUrl());
    const subscriber = createRedis(testRedisUrl(), 'subscriber');
    await Promise.all([redis.connect(), subscriber.connect()]);
    const process = { locker: new RedisLocker({ redis, subscriber, prefix, ...options }), redis, subscriber };
    processes.push(process);
    return process;
  }

  const uploadId = () => randomBytes(6).toString('hex');
  const keyOf = (id: string) => `${prefix}:${id}`;
  const never = () => new AbortController().signal;
  const ignore = () => undefined;

  /** A cancelReq the test can wait on. */
  function cancelSpy() {
    let cancelReq!: () => void;
    const firstCall = new Promise<void>((resolve) => (cancelReq = resolve));
    return { cancelReq, firstCall };
  }

  /** Settles with the lock-timeout error, or fails the test if `promise` resolves. */
  const rejection = (promise: Promise<void>) =>
    promise.then(
      () => expect.fail('lock() resolved'),
      (err: unknown) => err,
    );

  it('takes a free lock, keeps it in Redis while held and frees it on unlock', async () => {
    const a = await startProcess();
    const b = await startProcess();
    const id = uploadId();
    const lock = a.locker.newLock(id);
    await lock.lock(never(), ignore);
    expect(await admin.exists(keyOf(id))).to.equal(1);
    await lock.unlock();
    expect(await admin.exists(keyOf(id))).to.equal(0);

    const other = b.locker.newLock(id);
    await other.lock(never(), ignore);
    await other.unlock();
  });

  it('asks the holder in another process to release, and hands the lock over once it unlocks', async () => {
    const a = await startProcess();
    const b = await startProcess();
    const id = uploadId();
    const holder = a.locker.newLock(id);
    const spy = cancelSpy();
    await holder.lock(never(), spy.cancelReq);

    const events: string[] = [];
    const waiter = b.locker.newLock(id);
    const waiting = waiter.lock(never(), ignore).then(() => events.push('waiter acquired'));
    await spy.firstCall;
    events.push('holder asked to release');
    await holder.unlock();
    const unlockedAt = Date.now();
    events.push('holder unlocked');
    await waiting;
    expect(events).to.deep.equal(['holder asked to release', 'holder unlocked', 'waiter acquired']);
    // Woken by the release message, not by the one-second poll.
    expect(Date.now() - unlockedAt).to.be.below(500);
    await waiter.unlock();
  });

  /** The holder is asked to release, unlocks, and the waiter gets the lock. */
  async function handOver(holderSide: RedisLocker, waiterSide: RedisLocker) {
    const id = uploadId();
    const holder = holderSide.newLock(id);
    const spy = cancelSpy();
    await holder.lock(never(), spy.cancelReq);
    const waiter = waiterSide.newLock(id);
    const waiting = waiter.lock(never(), ignore);
    await spy.firstCall;
    await holder.unlock();
    await waiting;
    await waiter.unlock();
  }

  it('asks a holder in the same process too', async () => {
    const a = await startProcess();
    await handOver(a.locker, a.locker);
  });

  it("rejects a waiter whose signal aborts with tus's ERR_LOCK_TIMEOUT and leaves the holder its lock", async () => {
    const a = await startProcess();
    const b = await startProcess();
    const id = uploadId();
    const holder = a.locker.newLock(id);
    const spy = cancelSpy();
    await holder.lock(never(), spy.cancelReq);
    const holderToken = await admin.get(keyOf(id));

    const controller = new AbortController();
    const waiting = rejection(b.locker.newLock(id).lock(controller.signal, ignore));
    await spy.firstCall;
    controller.abort();
    expect(await waiting).to.equal(ERRORS.ERR_LOCK_TIMEOUT);
    expect(await admin.get(keyOf(id))).to.equal(holderToken);
    await holder.unlock();
  });

  it('gives up after acquireTimeoutMs, as MemoryLocker does', async () => {
    const a = await startProcess();
    const b = await startProcess({ acquireTimeoutMs: 200 });
    const id = uploadId();
    const holder = a.locker.newLock(id);
    await holder.lock(never(), ignore);
    expect(await rejection(b.locker.newLock(id).lock(never(), ignore))).to.equal(ERRORS.ERR_LOCK_TIMEOUT);
    await holder.unlock();
  });

  it('still hands the lock over when the waiter misses the release message', async () => {
    const a = await startProcess();
    const b = await startProcess({ ttlMs: 300 });
    // Process b hears nothing: only its poll can tell it the lock is free.
    b.subscriber.disconnect();
    await handOver(a.locker, b.locker);
  });

  it('keeps a live holder its lock well past ttlMs', async () => {
    const a = await startProcess({ ttlMs: 300 });
    const id = uploadId();
    const holder = a.locker.newLock(id);
    await holder.lock(never(), ignore);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await admin.pttl(keyOf(id))).to.be.within(1, 300);
    await holder.unlock();
  });

  it("lets a crashed process's lock expire after ttlMs, and the waiter then gets it", async () => {
    const ttlMs = 400;
    const a = await startProcess({ ttlMs });
    const b = await startProcess({ ttlMs });
    const id = uploadId();
    await a.locker.newLock(id).lock(never(), ignore);
    const crashedAt = Date.now();
    a.redis.disconnect();
    a.subscriber.disconnect();

    const waiter = b.locker.newLock(id);
    await waiter.lock(never(), ignore);
    // It waited for the expiry, not for the crashed holder, which will never answer.
    expect(Date.now() - crashedAt).to.be.within(ttlMs / 2, ttlMs + 1000);
    await waiter.unlock();
  });

  it("hands a crashed process's lock over within seconds by default, and wakes the waiter at its expiry", async function () {
    this.timeout(10_000);
    const a = await startProcess();
    const b = await startProcess();
    const id = uploadId();
    await a.locker.newLock(id).lock(never(), ignore);
    const crashedAt = Date.now();
    const expiresBy = crashedAt + (await admin.pttl(keyOf(id)));
    a.redis.disconnect();
    a.subscriber.disconnect();

    const waiter = b.locker.newLock(id);
    await waiter.lock(never(), ignore);
    expect(Date.now() - crashedAt).to.be.below(5000);
    // Not a poll interval after the expiry: the waiter knew when the key would go.
    expect(Date.now() - expiresBy).to.be.below(300);
    await waiter.unlock();
  });

  it("does not release someone else's lock when unlocking one it has lost, and tells the old holder to stop", async () => {
    const a = await startProcess({ ttlMs: 300 });
    const b = await startProcess();
    const id = uploadId();
    const stale = a.locker.newLock(id);
    const spy = cancelSpy();
    await stale.lock(never(), spy.cancelReq);
    // As if the key expired while process a stalled.
    await admin.del(keyOf(id));
    const current = b.locker.newLock(id);
    await current.lock(never(), ignore);
    const currentToken = await admin.get(keyOf(id));

    await spy.firstCall;
    await stale.unlock();
    expect(await admin.get(keyOf(id))).to.equal(currentToken);
    await current.unlock();
    expect(await admin.exists(keyOf(id))).to.equal(0);
  });

  it('refuses to unlock a lock never taken, as MemoryLocker does', async () => {
    const a = await startProcess();
    const lock = a.locker.newLock(uploadId());
    const err = await lock.unlock().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(Error);
  });

  it('stops listening on close', async () => {
    const a = await startProcess();
    a.locker.newLock(uploadId());
    await a.locker.close();
    expect(a.subscriber.listenerCount('message')).to.equal(0);
    // Subscriber mode ends with the last channel left, so the connection takes ordinary commands again.
    expect(await a.subscriber.get(keyOf('none'))).to.equal(null);
  });
});
