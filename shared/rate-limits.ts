import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { Batcher, type Outcome } from './batcher.js';
import type { Config } from './config.js';
import { AppError } from './errors.js';

/** One limit on Redis, so it holds across web processes: `points` per `duration` seconds per key. */
export class RateLimit {
  private readonly store: RateLimiterRedis;
  // Requests of one key at the same moment take their points in one Redis call.
  private readonly takes = new Batcher<null, void>((key, waiting) => this.take(key, waiting.length));

  constructor(
    redis: Redis,
    keyPrefix: string,
    readonly points: number,
    duration: number,
    private readonly message: string,
  ) {
    this.store = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix,
      points,
      duration,
      // While Redis is down each process limits on its own rather than refusing everything.
      insuranceLimiter: new RateLimiterMemory({ points, duration }),
    });
  }

  /** 429 if `key` has already used up its points, without taking one. */
  async assertUnder(key: string): Promise<void> {
    const state = await this.store.get(key);
    if (state && state.consumedPoints >= this.points) throw this.refusal(state);
  }

  /** Takes one point for `key`; past the limit a 429 that says how long to wait. */
  consume(key: string): Promise<void> {
    return this.takes.submit(key, null);
  }

  async reset(key: string): Promise<void> {
    await this.store.delete(key);
  }

  /** Takes `count` points at once; the first of them that fit under the limit pass. */
  private async take(key: string, count: number): Promise<Outcome<void>[]> {
    let state: RateLimiterRes;
    try {
      state = await this.store.consume(key, count);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      // A refusal that counts no points over the limit (a block kept in memory) refuses them all.
      if (err.consumedPoints <= this.points) return Array.from({ length: count }, () => ({ ok: false, error: this.refusal(err) }));
      state = err;
    }
    const takenBefore = state.consumedPoints - count;
    return Array.from({ length: count }, (_, i) => (takenBefore + i < this.points ? { ok: true, value: undefined } : { ok: false, error: this.refusal(state) }));
  }

  private refusal(state: RateLimiterRes): AppError {
    return AppError.tooManyRequests(this.message, state.msBeforeNext / 1000);
  }
}

const UPLOADS = 'Upload rate limit reached';
const SIGN_IN = 'Too many failed sign-ins; try again later';

/** Every rate limit of the service. */
export function createRateLimits(redis: Redis, config: Config) {
  const { redisPrefix: prefix, rateLimits } = config;
  const limit = (name: string, points: number, duration: number, message: string) => new RateLimit(redis, `${prefix}:rl:${name}`, points, duration, message);
  return {
    uploadsByKey: limit('upload-key', rateLimits.uploadsPerMinute, 60, UPLOADS),
    uploadsByIp: limit('upload-ip', rateLimits.anonymousUploadsPerMinute, 60, UPLOADS),
    // Drop pages take files from people without an account: the anonymous budget, per IP.
    dropsByIp: limit('drop-ip', rateLimits.anonymousUploadsPerMinute, 60, 'Too many drops from this address; try again later'),
    // Sign-in failures: a guessing budget per IP and per username, each over 15 minutes.
    loginFailuresByIp: limit('login-ip', rateLimits.loginFailures * 2, 15 * 60, SIGN_IN),
    loginFailuresByUser: limit('login-user', rateLimits.loginFailures, 15 * 60, SIGN_IN),
    // Wrong passwords of a share link, per link and address (the key names both).
    sharePasswordFailures: limit('share-password', 10, 10 * 60, 'Too many wrong passwords for this link; try again later'),
    registrationsByIp: limit('register-ip', 10, 60 * 60, 'Too many registrations from this address; try again later'),
    // Open OAuth client registration (MCP clients register once per install).
    clientRegistrationsByIp: limit('oauth-register-ip', 30, 60 * 60, 'Too many client registrations from this address; try again later'),
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;
