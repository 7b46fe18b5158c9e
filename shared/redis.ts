import { Redis, type RedisOptions } from 'ioredis';
import type { DependencyHealth } from './dependency-health.js';

/** How long one command on a request path may take before the caller gives up (503, or logged after a commit). */
export const REDIS_COMMAND_TIMEOUT_MS = 1000;

/**
 * Connections for commands and producers fail fast while Redis is down instead of queueing in memory
 * or waiting; BullMQ workers and subscribers need `maxRetriesPerRequest: null` on theirs for blocking
 * commands. Every connection reports to `health`, so an outage is one log line, not a stream of
 * "Unhandled error event" stack traces. `connectNow`: connect at once and retry until Redis answers —
 * for a BullMQ Worker's connection, as BullMQ calls `connect()` itself on a lazy one (and its copies),
 * and a first connect that Redis refuses leaves that Worker broken for good.
 */
export function createRedis(url: string, role: 'client' | 'worker' | 'subscriber' = 'client', health?: DependencyHealth, { connectNow = false } = {}): Redis {
  const options: RedisOptions =
    role === 'client'
      ? { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: REDIS_COMMAND_TIMEOUT_MS, connectTimeout: 2000 }
      : { lazyConnect: !connectNow, maxRetriesPerRequest: null, connectTimeout: 2000 };
  const redis = new Redis(url, options);
  redis.on('error', (err: unknown) => health?.failed(err));
  redis.on('ready', () => health?.recovered());
  return redis;
}
