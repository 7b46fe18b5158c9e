import { randomUUID } from 'node:crypto';
import { type Job, Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { Batcher, type Outcome } from './batcher.js';

/**
 * Every queue and job of the system, with its payload type and options, named once. Producers and
 * handlers import these types; the worker refuses to boot when a job here has no handler.
 */
export const QUEUE_NAMES = ['objects', 'expiry', 'url-fetch', 'cache-purge', 'notify', 'moderation'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];
/** Queues whose jobs can wait: their workers run one job at a time while this process's uploads burst (UploadLoad). */
export const YIELDING_QUEUES: readonly QueueName[] = ['moderation'];

export interface JobPayloads {
  /** Delete a stored object; every file delete and replace ends here. */
  'object.delete': { key: string };
  /** Delete a file whose expiry time has come (delayed to that time). */
  'file.expire': { fileId: string };
  /** Every minute: delete expired files whose own job was lost. */
  'files.expire-sweep': Record<string, never>;
  /** Tell every web process to drop cached lookups of a changed file, and purge its URLs at the CDN. */
  'cache.purge': { keys: string[]; urls: string[] };
  /** Write a notification for every account in batches and publish each (idempotent per account). */
  'notify.broadcast': { broadcastId: string; type: string; title: string; message: string; data: Record<string, unknown> };
  /** Every minute: close polls whose closesAt has passed. */
  'polls.close-due': Record<string, never>;
  /**
   * Send stored files to the moderation service, one after another, and act on each verdict: the
   * uploads committed together share one job (a lost check's sweep queues one file a job).
   */
  'moderation.check': { files: { fileId: string; objectKey: string }[] };
  /** Every ten minutes: queue a check for unjudged files whose check was lost. */
  'moderation.sweep': Record<string, never>;
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

const retried = (attempts: number, delay: number): JobsOptions => ({
  attempts,
  backoff: { type: 'exponential', delay },
  removeOnComplete: { count: 1000 },
  removeOnFail: { count: 5000 },
});

export const JOBS: { [K in JobName]: { queue: QueueName; options: JobsOptions } } = {
  'object.delete': { queue: 'objects', options: retried(10, 2000) },
  'file.expire': { queue: 'expiry', options: retried(5, 5000) },
  'files.expire-sweep': { queue: 'expiry', options: { removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } } },
  'cache.purge': { queue: 'cache-purge', options: retried(8, 1000) },
  'notify.broadcast': { queue: 'notify', options: retried(5, 2000) },
  'polls.close-due': { queue: 'expiry', options: { removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } } },
  // The moderation service may be down for a while: retries back off over a few days.
  'moderation.check': { queue: 'moderation', options: retried(15, 10_000) },
  'moderation.sweep': { queue: 'moderation', options: { removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } } },
  // The caller is waiting: no retries, a failure is the answer.
  'url.fetch': { queue: 'url-fetch', options: { attempts: 1, removeOnComplete: { age: 3600 }, removeOnFail: { age: 3600 } } },
};

/** Jobs that run on a schedule; the workers of their queue register them at start (idempotently). */
export const SCHEDULES: { id: string; job: JobName; everyMs: number }[] = [
  { id: 'expire-sweep', job: 'files.expire-sweep', everyMs: 60_000 },
  { id: 'close-due-polls', job: 'polls.close-due', everyMs: 60_000 },
  { id: 'moderation-sweep', job: 'moderation.sweep', everyMs: 10 * 60_000 },
];

export function isQueueName(value: string): value is QueueName {
  return (QUEUE_NAMES as readonly string[]).includes(value);
}

/** The producer side: one BullMQ Queue per queue name, created on first use. */
export class JobQueues {
  private readonly queues = new Map<QueueName, Queue>();
  // Jobs added to one queue at the same moment (a burst of uploads each queueing its check) go to
  // Redis in one round trip. That pipeline runs every command even when one fails, so after a
  // failure each caller learns whether its own job was stored (every job has an id to look for).
  private readonly adds = new Batcher<{ name: JobName; data: unknown; opts: JobsOptions & { jobId: string } }, Job>(async (name, jobs) => {
    const queue = this.queue(name as QueueName);
    try {
      return (await queue.addBulk(jobs)).map((job) => ({ ok: true, value: job }));
    } catch (error) {
      return Promise.all(
        jobs.map(async ({ opts }): Promise<Outcome<Job>> => {
          const stored = await queue.getJob(opts.jobId).catch(() => undefined);
          return stored ? { ok: true, value: stored } : { ok: false, error };
        }),
      );
    }
  });

  constructor(
    private readonly connection: Redis,
    readonly prefix: string,
  ) {}

  queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.connection, prefix: this.prefix });
      this.queues.set(name, queue);
    }
    return queue;
  }

  async add<K extends JobName>(name: K, data: JobPayloads[K], options: JobsOptions = {}) {
    const def = JOBS[name];
    const opts = { ...def.options, ...options, jobId: options.jobId ?? randomUUID() };
    return this.adds.submit(def.queue, { name, data, opts }) as Promise<Job<JobPayloads[K]>>;
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
