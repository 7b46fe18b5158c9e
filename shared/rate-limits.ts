import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from './config.js';
import { AppError } from './errors.js';

export type Limiter = RateLimiterRedis;

function limiter(redis: Redis, prefix: string, name: string, points: number, duration: number): Limiter {
  return new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: `${prefix}:rl:${name}`,
    points,
    duration,
    // While Redis is down each process limits on its own rather than refusing everything.
    insuranceLimiter: new RateLimiterMemory({ points, duration }),
  });
}

/** Every rate limit of the service, on Redis so they hold across web processes. */
export function createRateLimits(redis: Redis, config: Config) {
  const { redisPrefix: prefix, rateLimits } = config;
  return {
    uploadsByKey: limiter(redis, prefix, 'upload-key', rateLimits.uploadsPerMinute, 60),
    uploadsByIp: limiter(redis, prefix, 'upload-ip', rateLimits.anonymousUploadsPerMinute, 60),
    // Sign-in failures: a guessing budget per IP and per username, each over 15 minutes.
    loginFailuresByIp: limiter(redis, prefix, 'login-ip', rateLimits.loginFailures * 2, 15 * 60),
    loginFailuresByUser: limiter(redis, prefix, 'login-user', rateLimits.loginFailures, 15 * 60),
    registrationsByIp: limiter(redis, prefix, 'register-ip', 10, 60 * 60),
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;

/** 429 if `key` has already used up its points, without taking one. */
export async function assertUnder(limit: Limiter, key: string, message: string): Promise<void> {
  const state = await limit.get(key);
  if (state && state.consumedPoints >= limit.points) throw AppError.tooManyRequests(message, state.msBeforeNext / 1000);
}

/** Takes one point for `key`; past the limit a 429 that says how long to wait. */
export async function consume(limit: Limiter, key: string, message = 'Rate limit reached'): Promise<void> {
  try {
    await limit.consume(key);
  } catch (err) {
    if (err instanceof RateLimiterRes) throw AppError.tooManyRequests(message, err.msBeforeNext / 1000);
    throw err;
  }
}
