import { type Job, Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { redisWithin } from './dependency-health.js';

/**
 * Every queue and job of the system, with its payload type and options, named once. Producers and
 * handlers import these types; the worker refuses to boot when a job here has no handler.
 */
export const QUEUE_NAMES = ['objects', 'expiry', 'url-fetch', 'cache-purge', 'notify', 'moderation', 'domains', 'thumbnails', 'webhooks'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export interface JobPayloads {
  /** Delete a stored object with its thumbnails; every file delete and replace ends here. */
  'object.delete': { key: string };
  /** Delete many stored objects with their thumbnails at once (an expiry batch's): one listing for all. */
  'objects.delete': { keys: string[] };
  /** Every hour: delete stored objects that no file row names (left by killed uploads or lost deletes). */
  'storage.reconcile': Record<string, never>;
  /** Delete a file whose expiry time has come (delayed to that time). */
  'file.expire': { fileId: string };
  /** Every minute: delete expired files whose own job was lost. */
  'files.expire-sweep': Record<string, never>;
  /** Purge a changed file's URLs at the configured CDN (web processes hear of the change directly). */
  'cache.purge': { urls: string[] };
  /** Write a notification for every account in batches and publish each (idempotent per account). */
  'notify.broadcast': { broadcastId: string; type: string; title: string; message: string; data: Record<string, unknown> };
  /** Every minute: close polls whose closesAt has passed. */
  'polls.close-due': Record<string, never>;
  /** Check a pending custom domain's DNS and, once it holds, get its certificate; runs again later while pending. */
  'domain.check': { accountId: string; domain: string; attempt: number };
  /** Every day: renew custom-domain certificates that end within 30 days (HTTP-01). */
  'domains.renew': Record<string, never>;
  /** Every hour: remove resumable uploads left unfinished past their expiry, with their stored parts. */
  'uploads.expire': Record<string, never>;
  /** Every hour: delete expired OAuth codes, tokens and sessions, and client registrations never used. */
  'oauth.prune': Record<string, never>;
  /** Send one stored file's current content to the moderation service and act on the verdict. */
  'moderation.check': { fileId: string; objectKey: string };
  /** Every ten minutes: queue a check for unjudged files whose check was lost. */
  'moderation.sweep': Record<string, never>;
  /** Make the thumbnail and preview of one stored file's current content, beside its object. */
  'file.thumbnail': { fileId: string; objectKey: string };
  /** Send one webhook delivery (an attempt; failed ones run again later, under the same job id). */
  'webhook.deliver': { deliveryId: string };
  /** Every minute: queue pending webhook deliveries whose job was lost; forget old deliveries. */
  'webhooks.sweep': Record<string, never>;
  /** Fetch a remote image and store it as an upload; the API waits for the result. */
  'url.fetch': {
    accountId: string | null;
    folderId: string | null;
    imageUrl: string;
    expiry: '1h' | '6h' | '1d' | '7d' | '30d' | null;
    source: string;
    /** epoch ms after which nobody waits for the answer: the job must not store anything then */
    answerBy: number;
  };
}
export type JobName = keyof JobPayloads;

/**
 * Jobs a worker process runs at once, per queue. The moderation queue's is a setting
 * (MODERATION_CONCURRENCY, config.ts): a check mostly waits for the vision service, which batches
 * what arrives together, so it must send enough at once to fill its batches.
 */
export const QUEUE_CONCURRENCY: Record<Exclude<QueueName, 'moderation'>, number> = {
  objects: 4,
  expiry: 4,
  'url-fetch': 4,
  'cache-purge': 4,
  notify: 4,
  // ACME and DNS round trips: slow, but light.
  domains: 4,
  // Decoding a large image or a video frame takes a core for a moment.
  thumbnails: 2,
  // Mostly waiting on receivers (up to 10 s each): many at once cost little.
  webhooks: 8,
};

const retried = (attempts: number, delay: number): JobsOptions => ({
  attempts,
  backoff: { type: 'exponential', delay },
  removeOnComplete: { count: 1000 },
  removeOnFail: { count: 5000 },
});

export const JOBS: { [K in JobName]: { queue: QueueName; options: JobsOptions } } = {
  'object.delete': { queue: 'objects', options: retried(10, 2000) },
  'objects.delete': { queue: 'objects', options: retried(10, 2000) },
  'storage.reconcile': { queue: 'objects', options: { removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } } },
  'file.expire': { queue: 'expiry', options: retried(5, 5000) },
  'files.expire-sweep': { queue: 'expiry', options: { removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } } },
  'cache.purge': { queue: 'cache-purge', options: retried(8, 1000) },
  'notify.broadcast': { queue: 'notify', options: retried(5, 2000) },
  'polls.close-due': { queue: 'expiry', options: { removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } } },
  'domain.check': { queue: 'domains', options: { attempts: 3, backoff: { type: 'exponential', delay: 60_000 }, removeOnComplete: { count: 1000 }, removeOnFail: { count: 1000 } } },
  'domains.renew': { queue: 'domains', options: { removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } } },
  'uploads.expire': { queue: 'expiry', options: { removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } } },
  'oauth.prune': { queue: 'expiry', options: { removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } } },
  // The moderation service may be down for a while: retries back off over a few days.
  'moderation.check': { queue: 'moderation', options: retried(15, 10_000) },
  'moderation.sweep': { queue: 'moderation', options: { removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } } },
  // Retried only when storage failed; content that cannot be decoded completes with no thumbnail.
  'file.thumbnail': { queue: 'thumbnails', options: retried(5, 5000) },
  // Retried here only when our side failed (PostgreSQL out of reach); a receiver's failure is
  // rescheduled by the handler on WEBHOOK_RETRY_DELAYS, and the sweep finds what is lost.
  'webhook.deliver': { queue: 'webhooks', options: retried(5, 10_000) },
  'webhooks.sweep': { queue: 'webhooks', options: { removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } } },
  // The caller is waiting: no retries, a failure is the answer.
  'url.fetch': { queue: 'url-fetch', options: { attempts: 1, removeOnComplete: { age: 3600 }, removeOnFail: { age: 3600 } } },
};

/**
 * Job ids that make a job unique: queueing the same work twice is a no-op, and a sweep can tell
 * whether the work was ever queued. Built here only.
 */
export const jobIds = {
  /** One check per stored content: a replace (new object key) is checked again. */
  moderationCheck: (fileId: string, objectKey: string) => `moderate-${fileId}-${objectKey.slice(objectKey.lastIndexOf('/') + 1)}`,
  fileExpire: (fileId: string) => `expire-${fileId}`,
  /** One thumbnail job per stored content, like its moderation check. */
  fileThumbnail: (fileId: string, objectKey: string) => `thumbnail-${fileId}-${objectKey.slice(objectKey.lastIndexOf('/') + 1)}`,
  /** One check job per domain as added (a removed and re-added domain starts afresh). */
  domainCheck: (domain: string, addedAt: Date) => `domain-check-${domain}-${addedAt.getTime()}`,
  /** The delivery's own id (its webhook-id): every attempt is the same job, so one is never queued twice. */
  webhookDelivery: (deliveryId: string) => deliveryId,
};

/** Jobs that run on a schedule; the workers of their queue register them at start (idempotently). */
export const SCHEDULES: { id: string; job: JobName; everyMs: number }[] = [
  { id: 'expire-sweep', job: 'files.expire-sweep', everyMs: 60_000 },
  { id: 'close-due-polls', job: 'polls.close-due', everyMs: 60_000 },
  { id: 'moderation-sweep', job: 'moderation.sweep', everyMs: 10 * 60_000 },
  { id: 'webhooks-sweep', job: 'webhooks.sweep', everyMs: 60_000 },
  { id: 'storage-reconcile', job: 'storage.reconcile', everyMs: 60 * 60_000 },
  { id: 'oauth-prune', job: 'oauth.prune', everyMs: 60 * 60_000 },
  { id: 'expire-resumable-uploads', job: 'uploads.expire', everyMs: 60 * 60_000 },
  { id: 'renew-certificates', job: 'domains.renew', everyMs: 24 * 60 * 60_000 },
];

export function isQueueName(value: string): value is QueueName {
  return (QUEUE_NAMES as readonly string[]).includes(value);
}

// A queue's first use waits for its connection; a command on a live one answers in a millisecond.
const ADD_TIMEOUT_MS = 2000;

/** The producer side: one BullMQ Queue per queue name, created on first use. */
export class JobQueues {
  private readonly queues = new Map<QueueName, Queue>();

  /** `onError`: a queue's connection trouble (without a listener BullMQ prints each one with its stack). */
  constructor(
    private readonly connection: Redis,
    readonly prefix: string,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.connection, prefix: this.prefix });
      queue.on('error', this.onError);
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** Fails within ADD_TIMEOUT_MS while Redis is out of reach, rather than waiting for it to return. */
  async add<K extends JobName>(name: K, data: JobPayloads[K], options: JobsOptions = {}): Promise<Job<JobPayloads[K]>> {
    const def = JOBS[name];
    return redisWithin(this.queue(def.queue).add(name, data, { ...def.options, ...options }), ADD_TIMEOUT_MS, `queueing ${name}`);
  }

  /** Drops queued jobs by id (timers whose work another job has done); one running or gone is left as it is. */
  async drop(name: JobName, jobIds: readonly string[]): Promise<void> {
    const queue = this.queue(JOBS[name].queue);
    await redisWithin(Promise.all(jobIds.map((id) => queue.remove(id))), ADD_TIMEOUT_MS, `dropping ${name} jobs`);
  }

  /** Registers the scheduled jobs that run on these queues. */
  async registerSchedules(queues: readonly QueueName[]): Promise<void> {
    for (const schedule of SCHEDULES) {
      const def = JOBS[schedule.job];
      if (!queues.includes(def.queue)) continue;
      await this.queue(def.queue).upsertJobScheduler(
        schedule.id,
        { every: schedule.everyMs },
        { name: schedule.job, data: {}, opts: def.options },
      );
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }
}
