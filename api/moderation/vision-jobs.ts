import { rm } from 'node:fs/promises';
import { type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DependencyHealth } from '../../shared/dependency-health.js';
import { AppError, isAppError } from '../../shared/errors.js';
import { createRedis } from '../../shared/redis.js';
import type { MediaKind } from './media.js';
import type { ModerationResult, Moderator } from './moderator.js';

// The moderation service's own queue: its jobs are this process's work, not the main workers'.
export const VISION_QUEUE = 'vision';
export interface VisionJobData {
  file: string;
  kind: MediaKind;
}

export type JobStatus = 'queued' | 'processing' | 'completed' | 'failed';

const STATE_TO_STATUS: Record<string, JobStatus> = {
  waiting: 'queued', delayed: 'queued', prioritized: 'queued', 'waiting-children': 'queued',
  active: 'processing', completed: 'completed', failed: 'failed',
};

/**
 * Long GIF and video moderation as BullMQ jobs on Redis, so queued work survives a restart; at most
 * `concurrency` run at once. The uploaded file waits in the service's work dir until its job ends.
 */
export class VisionJobs {
  readonly queue: Queue;
  private worker: Worker | undefined;

  constructor(
    connection: Redis,
    private readonly options: { redisUrl: string; prefix: string; concurrency: number; health: DependencyHealth },
  ) {
    this.queue = new Queue(VISION_QUEUE, { connection, prefix: options.prefix });
    this.queue.on('error', (err) => options.health.failed(err));
  }

  start(moderator: Moderator): void {
    this.worker = new Worker<VisionJobData, ModerationResult>(
      VISION_QUEUE,
      async (job, _token, signal) => {
        try {
          return await moderator.moderate(job.data.file, job.data.kind, (fraction) => job.updateProgress(Math.round(fraction * 100)), signal);
        } catch (err) {
          // Bad media will not get better on a retry.
          if (isAppError(err)) throw new UnrecoverableError(err.message);
          throw err;
        } finally {
          // A job cut off by a shutdown runs again after the restart and still needs its file.
          if (!signal?.aborted) await rm(job.data.file, { force: true });
        }
      },
      // Connected at once and retried until Redis answers: a worker whose first lazy connect fails stays broken.
      { connection: createRedis(this.options.redisUrl, 'worker', this.options.health, { connectNow: true }), prefix: this.options.prefix, concurrency: this.options.concurrency },
    );
    // Connection trouble: one line per outage (BullMQ repeats it for every retry).
    this.worker.on('error', (err) => this.options.health.failed(err));
  }

  async add(data: VisionJobData): Promise<string> {
    const job = await this.queue.add('moderate', data, { attempts: 1, removeOnComplete: { age: 24 * 3600 }, removeOnFail: { age: 24 * 3600 } });
    return job.id!;
  }

  async status(id: string): Promise<{ job: Job<VisionJobData, ModerationResult>; status: JobStatus }> {
    const job = (await this.queue.getJob(id)) as Job<VisionJobData, ModerationResult> | undefined;
    if (!job) throw AppError.notFound('Job not found');
    return { job, status: STATE_TO_STATUS[await job.getState()] ?? 'queued' };
  }

  async queued(): Promise<number> {
    const counts = await this.queue.getJobCounts('waiting', 'delayed', 'prioritized');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  get workerCount(): number {
    return this.worker ? 1 : 0;
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue.close();
  }
}
