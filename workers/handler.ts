import type { Job } from 'bullmq';
import type { Container } from '../shared/container.js';
import type { JobName, JobPayloads } from '../shared/jobs.js';

export interface JobContext {
  container: Container;
  job: Job;
  /** Aborted when the worker shuts down: long work should stop and let the job be retried. */
  signal: AbortSignal;
}

export type JobHandler<K extends JobName> = (data: JobPayloads[K], ctx: JobContext) => Promise<unknown>;
export type HandlerMap = { [K in JobName]: JobHandler<K> };
