import { Redis, type RedisOptions } from 'ioredis';

/**
 * Connections for commands and producers fail fast while Redis is down instead of queueing in memory;
 * BullMQ workers need `maxRetriesPerRequest: null` on theirs for blocking commands.
 */
export function createRedis(url: string, role: 'client' | 'worker' | 'subscriber' = 'client'): Redis {
  const options: RedisOptions =
    role === 'client' ? { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 } : { lazyConnect: true, maxRetriesPerRequest: null };
  return new Redis(url, options);
}
