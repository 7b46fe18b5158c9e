import type { Job } from 'bullmq';
import type { Container } from '../shared/container.js';
import type { JobName, JobPayloads } from '../shared/jobs.js';

export interface JobContext {
  container: Container;
  job: Job;
  /** Aborted when the worker shuts down: long work should stop and let the job be retried. */
  signal: AbortSignal;
  /**
   * Resolves when work that can wait may go on: on a yielding queue, once this process's upload
   * burst is over or after a pause (the pool waits so before every job; a job of several units
   * waits so between them), at once elsewhere.
   */
  pause: () => Promise<void>;
}

export type JobHandler<K extends JobName> = (data: JobPayloads[K], ctx: JobContext) => Promise<unknown>;
export type HandlerMap = { [K in JobName]: JobHandler<K> };
