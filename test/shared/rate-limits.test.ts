import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimit } from '../../shared/rate-limits.js';
import { createRedis } from '../../shared/redis.js';
import { testRedisUrl } from '../helpers/engines.js';

describe('RateLimit (on Redis)', () => {
  let redis: Redis;
  const prefix = `t${randomBytes(5).toString('hex')}:rl`;
  before(async () => {
    redis = createRedis(testRedisUrl());
    await redis.connect();
  });
  after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  const outcomes = (promises: Promise<void>[]) =>
    Promise.allSettled(promises).then((all) => all.map((r) => (r.status === 'fulfilled' ? 'ok' : (r.reason as { status: number }).status)));

  it('lets exactly its points through when many requests of one key come at once', async () => {
    const limit = new RateLimit(redis, `${prefix}:burst`, 3, 60, 'Slow down');
    expect(await outcomes(Array.from({ length: 5 }, () => limit.consume('k')))).to.deep.equal(['ok', 'ok', 'ok', 429, 429]);
    expect(await outcomes([limit.consume('k')])).to.deep.equal([429]);
    // Another key has its own points.
    expect(await outcomes([limit.consume('other')])).to.deep.equal(['ok']);
  });

  it('counts requests that come one after another and while others are under way', async () => {
    const limit = new RateLimit(redis, `${prefix}:steady`, 4, 60, 'Slow down');
    await limit.consume('k');
    const first = limit.consume('k');
    await new Promise((r) => setImmediate(r));
    const during = [limit.consume('k'), limit.consume('k'), limit.consume('k')];
    expect(await outcomes([first, ...during])).to.deep.equal(['ok', 'ok', 'ok', 429]);
  });

  it('refuses with the seconds to wait and its own message', async () => {
    const limit = new RateLimit(redis, `${prefix}:refusal`, 1, 60, 'Slow down');
    await limit.consume('k');
    const refusal = await limit.consume('k').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refusal).to.include({ status: 429, message: 'Slow down' });
    const retryAfter = (refusal as { extra: { retryAfter?: number } }).extra.retryAfter;
    expect(retryAfter).to.be.within(1, 60);
  });

  it('checks without taking a point, and forgets a key on reset', async () => {
    const limit = new RateLimit(redis, `${prefix}:check`, 2, 60, 'Slow down');
    await limit.assertUnder('k');
    await limit.consume('k');
    await limit.consume('k');
    expect(await outcomes([limit.assertUnder('k')])).to.deep.equal([429]);
    await limit.reset('k');
    await limit.assertUnder('k');
    expect(await outcomes([limit.consume('k')])).to.deep.equal(['ok']);
  });
});
