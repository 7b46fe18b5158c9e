import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { FileRow } from '../db/schema.js';
import type { JobQueues } from '../jobs.js';
import type { Logger } from '../logger.js';
import type { Principal } from '../principal.js';
import { cacheKeysOf, type FileCache } from './file-cache.js';
import type { FileUrls } from './file-urls.js';

/**
 * After a file changes (replace, rename, delete) nothing may keep serving the old state: this
 * process drops its cached lookups at once, and the cache-purge job tells every web process over
 * Redis pub/sub and, when configured, purges the file's URLs at the CDN.
 */
export class CachePurgeService {
  readonly channel: string;

  constructor(
    private readonly deps: {
      cache: FileCache;
      jobs: JobQueues;
      redis: Redis;
      urls: FileUrls;
      logger: Logger;
      config: Pick<Config, 'redisPrefix' | 'cdnPurge'>;
    },
  ) {
    this.channel = `${deps.config.redisPrefix}:cache-purge`;
  }

  async fileChanged(file: FileRow, owner: Pick<Principal, 'username'> | null, ...formerNames: string[]): Promise<void> {
    const keys = cacheKeysOf(file, ...formerNames);
    this.deps.cache.invalidate(keys);
    const urls = [file.filename, ...formerNames].flatMap((filename) => this.deps.urls.allFor({ ...file, filename }, owner));
    await this.deps.jobs.add('cache.purge', { keys, urls }).catch((err: unknown) => {
      // Other processes' entries expire within a minute anyway; the change itself stands.
      this.deps.logger.warn({ err }, 'could not queue a cache purge');
    });
  }

  /** Job side: every web process drops these keys. */
  async broadcast(keys: string[]): Promise<void> {
    await this.deps.redis.publish(this.channel, JSON.stringify(keys));
  }

  /** Job side: one request per URL to the configured CDN purge endpoint; a failure retries the job. */
  async purgeCdn(urls: string[]): Promise<number> {
    const cdn = this.deps.config.cdnPurge;
    if (!cdn) return 0;
    for (const url of urls) {
      const res = await fetch(cdn.urlTemplate.replaceAll('{url}', encodeURIComponent(url)), {
        method: cdn.method,
        headers: cdn.authorization ? { authorization: cdn.authorization } : {},
      });
      await res.body?.cancel();
      if (!res.ok && res.status !== 404) throw new Error(`CDN purge answered ${res.status} for ${url}`);
    }
    return urls.length;
  }

  /** Web side: listen for purges from any process on a connection of its own (subscriber mode). */
  async subscribe(subscriber: Redis): Promise<void> {
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      try {
        this.deps.cache.invalidate(JSON.parse(message) as string[]);
      } catch (err) {
        this.deps.logger.warn({ err }, 'bad cache purge message');
      }
    });
    await subscriber.subscribe(this.channel);
  }
}
