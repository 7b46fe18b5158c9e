import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { redisWithin, type DependencyHealth } from '../dependency-health.js';
import type { FileRow } from '../db/schema.js';
import type { JobQueues } from '../jobs.js';
import type { Logger } from '../logger.js';
import type { Principal } from '../principal.js';
import { cacheKeysOf, type FileCache } from './file-cache.js';
import type { FileUrls } from './file-urls.js';

// How often a web process checks that its subscription still answers, and how long it waits.
const HEARTBEAT_MS = 5_000;
const HEARTBEAT_TIMEOUT_MS = 2_000;

/**
 * After a file changes (replace, rename, delete, privacy, quarantine) nothing may keep serving the old
 * state: the changing process drops its own cached lookups and tells every web process over Redis
 * pub/sub before the change is answered; a job purges the file's URLs at the CDN when one is configured.
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
      health: DependencyHealth;
      config: Pick<Config, 'redisPrefix' | 'cdnPurge'>;
    },
  ) {
    this.channel = `${deps.config.redisPrefix}:cache-purge`;
  }

  async fileChanged(file: FileRow, owner: Pick<Principal, 'username'> | null, ...formerNames: string[]): Promise<void> {
    const keys = cacheKeysOf(file, ...formerNames);
    this.deps.cache.invalidate(keys);
    await this.announce(keys);
    if (!this.deps.config.cdnPurge) return;
    const urls = [file.filename, ...formerNames].flatMap((filename) => this.deps.urls.allFor({ ...file, filename }, owner));
    await this.deps.jobs.add('cache.purge', { urls }).catch((err: unknown) => {
      this.deps.logger.warn({ err, fileId: file.id }, 'could not queue a CDN purge');
    });
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

  /**
   * Web side: drops the keys other processes announce, on a connection of its own (subscriber mode).
   * The cache works only while subscribed: it is emptied and bypassed from the moment the connection
   * drops or stops answering its heartbeat until the subscription is back. Returns `stop`.
   */
  async subscribe(subscriber: Redis): Promise<() => void> {
    const { cache, logger } = this.deps;
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      try {
        cache.invalidate(JSON.parse(message) as string[]);
      } catch (err) {
        logger.warn({ err }, 'bad cache purge message');
      }
    });
    subscriber.on('close', () => cache.suspend());
    const resubscribe = () => void subscriber.subscribe(this.channel).then(() => cache.resume(), () => cache.suspend());
    subscriber.on('ready', resubscribe);
    await subscriber.subscribe(this.channel);
    cache.resume();
    const heartbeat = setInterval(() => {
      if (subscriber.status !== 'ready') return;
      redisWithin(subscriber.ping(), HEARTBEAT_TIMEOUT_MS, 'subscriber heartbeat').catch(() => {
        cache.suspend();
        subscriber.disconnect(true);
      });
    }, HEARTBEAT_MS).unref();
    return () => {
      clearInterval(heartbeat);
      subscriber.off('ready', resubscribe);
    };
  }

  /** Every web process drops `keys`: PUBLISH answers once Redis has handed the message to each subscriber. */
  private async announce(keys: string[]): Promise<void> {
    try {
      await this.deps.redis.publish(this.channel, JSON.stringify(keys));
    } catch (err) {
      // Redis is out of reach, so the other processes' subscriptions are down too and their caches suspended.
      this.deps.health.failed(err);
    }
  }
}
