import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import { redisWithin, type DependencyHealth } from '../../dependency-health.js';
import type { FileRow } from '../../db/schema.js';
import type { JobQueues } from '../../jobs.js';
import type { Logger } from '../../logger.js';
import type { Principal } from '../../principal.js';
import { cacheKeysOf, type FileCache } from './file-cache.js';
import type { FileUrls } from './file-urls.js';
import { renditionUrlsOf } from '../media/thumbnails/thumbnail-keys.js';
import { queriesNaming } from '../media/renditions/rendition-params.js';
import type { RenditionService } from '../media/renditions/rendition.service.js';

/** What a change makes every process forget: lookups by cache key, and the bytes of objects that are gone. */
interface Invalidation {
  /** answered on the ack channel by every process once it has forgotten */
  id: string;
  keys: string[];
  objectKeys: string[];
}

// How long a change waits for every subscribed process to confirm. A process that has not by then
// (paused, starved) serves nothing from its cache until a heartbeat proves it has read the change.
const ACK_TIMEOUT_MS = 250;

// A heartbeat's PONG comes after every message published before its PING (one connection, in order):
// the cache may answer for FRESH_MS after the PING was sent. FRESH_MS < ACK_TIMEOUT_MS, so a change
// answered without this process's acknowledgement is always newer than what the cache may still answer
// (the margin is for timers that fire a little early).
const HEARTBEAT_MS = 100;
const FRESH_MS = 200;
// A heartbeat unanswered this long: the connection is dropped and made again.
const HEARTBEAT_TIMEOUT_MS = 2_000;

/**
 * After a file changes (replace, rename, delete, privacy, quarantine) nothing may keep serving the old
 * state: the changing process drops its own cached lookups and tells every web process over Redis
 * pub/sub before the change is answered; a job purges the file's URLs at the CDN when one is configured.
 */
export class CachePurgeService {
  readonly channel: string;
  private readonly ackChannel: string;
  private readonly processId = randomUUID();
  private sequence = 0;
  // Changes of this process waiting for acknowledgements, by id; only processes that subscribe wait.
  private readonly waiting = new Map<string, Waiting>();
  private subscribed = false;

  constructor(
    private readonly deps: {
      cache: FileCache;
      jobs: JobQueues;
      redis: Redis;
      urls: FileUrls;
      renditions: Pick<RenditionService, 'storedOf'>;
      logger: Logger;
      health: DependencyHealth;
      config: Pick<Config, 'redisPrefix' | 'cdnPurge' | 'siteUrl'>;
    },
  ) {
    this.channel = `${deps.config.redisPrefix}:cache-purge`;
    this.ackChannel = `${deps.config.redisPrefix}:cache-purge-ack`;
  }

  /** `before`: what the change left behind, a rename's old name and a replace's old content. */
  async fileChanged(file: FileRow, owner: Pick<Principal, 'username'> | null, before: FileChange['before'] = {}): Promise<void> {
    await this.filesChanged([{ file, owner, before }]);
  }

  /** Changes to many files at once (an expiry batch): one message tells every process of them all. */
  async filesChanged(changes: readonly FileChange[]): Promise<void> {
    const keys = changes.flatMap(({ file, before }) => cacheKeysOf(file, ...formerNamesOf(before)));
    // Bytes are kept by object key, whose content never changes: only a gone object's are dropped.
    const objectKeys = changes.flatMap(({ file, before, removed }) => [...(removed ? [file.objectKey] : []), ...(before?.objectKey ? [before.objectKey] : [])]);
    this.deps.cache.invalidate(keys, objectKeys);
    await this.announce({ id: `${this.processId}:${++this.sequence}`, keys, objectKeys });
    if (this.deps.config.cdnPurge) await Promise.all(changes.map((change) => this.queueCdnPurge(change)));
  }

  private async queueCdnPurge({ file, owner, before = {} }: FileChange): Promise<void> {
    const formerNames = formerNamesOf(before);
    const fileUrls = [file.filename, ...formerNames].flatMap((filename) => this.deps.urls.allFor({ ...file, filename }, owner));
    const urls = [...fileUrls];
    // Renditions are served at the file's own URLs with a query: those made so far, of the old content too.
    for (const objectKey of new Set([file.objectKey, before.objectKey ?? file.objectKey])) {
      for await (const name of this.deps.renditions.storedOf(objectKey)) {
        for (const query of queriesNaming(name, file.mimeType)) urls.push(...fileUrls.map((url) => `${url}?${query}`));
      }
    }
    // Thumbnails are cached for a year: a CDN must drop them too when the file goes or changes.
    if (file.thumbnailAt) urls.push(...renditionUrlsOf(this.deps.config.siteUrl, file));
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
      if (channel === this.ackChannel) return this.acknowledged(message);
      if (channel !== this.channel) return;
      let change: Invalidation;
      try {
        change = JSON.parse(message) as Invalidation;
      } catch (err) {
        logger.warn({ err }, 'bad cache purge message');
        return;
      }
      cache.invalidate(change.keys, change.objectKeys);
      // The change's process answers its client once every process has said this.
      this.deps.redis.publish(this.ackChannel, change.id).catch((err: unknown) => this.deps.health.failed(err));
    });
    subscriber.on('close', () => cache.suspend());
    const resubscribe = () => void subscriber.subscribe(this.channel, this.ackChannel).then(() => cache.resume(), () => cache.suspend());
    subscriber.on('ready', resubscribe);
    await subscriber.subscribe(this.channel, this.ackChannel);
    this.subscribed = true;
    cache.resume();
    let beating = false;
    const heartbeat = setInterval(() => {
      if (beating || subscriber.status !== 'ready') return;
      beating = true;
      const sentAt = performance.now();
      redisWithin(subscriber.ping(), HEARTBEAT_TIMEOUT_MS, 'subscriber heartbeat')
        .then(
          () => cache.confirm(sentAt, sentAt + FRESH_MS),
          () => {
            cache.suspend();
            subscriber.disconnect(true);
          },
        )
        .finally(() => (beating = false));
    }, HEARTBEAT_MS).unref();
    return () => {
      clearInterval(heartbeat);
      subscriber.off('ready', resubscribe);
    };
  }

  /**
   * Every web process drops these before this returns: PUBLISH says how many processes received the
   * message, and (in a process that subscribes) each of them acknowledges once it has forgotten.
   * A worker's changes (expiry, quarantine) answer no client, so it does not wait.
   */
  private async announce(change: Invalidation): Promise<void> {
    const acks = this.subscribed ? this.acksFor(change.id) : undefined;
    try {
      const receivers = await this.deps.redis.publish(this.channel, JSON.stringify(change));
      if (acks) await acks.all(receivers);
    } catch (err) {
      // Redis is out of reach, so the other processes' subscriptions are down too and their caches suspended.
      this.deps.health.failed(err);
    } finally {
      this.waiting.delete(change.id);
    }
  }

  /** Counts the acknowledgements of one change (some may arrive before PUBLISH has answered). */
  private acksFor(id: string) {
    const entry: Waiting = { received: 0, settle: () => undefined };
    this.waiting.set(id, entry);
    return {
      all: (receivers: number) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ACK_TIMEOUT_MS);
          entry.settle = () => {
            if (entry.received < receivers) return;
            clearTimeout(timer);
            resolve();
          };
          entry.settle();
        }),
    };
  }

  private acknowledged(id: string): void {
    const entry = this.waiting.get(id);
    if (!entry) return;
    entry.received += 1;
    entry.settle();
  }
}

/** A changed file, its owner (null: an anonymous upload) and what the change left behind. */
export interface FileChange {
  file: FileRow;
  owner: Pick<Principal, 'username'> | null;
  /** a rename's old name and a replace's old content */
  before?: { filename?: string; objectKey?: string };
  /** the file is gone (deleted, expired) */
  removed?: boolean;
}

function formerNamesOf(before: FileChange['before']): string[] {
  return before?.filename ? [before.filename] : [];
}

interface Waiting {
  received: number;
  /** resolves the wait once every expected acknowledgement is in */
  settle: () => void;
}
