import type { Container } from '../shared/container.js';
import type { JobName, JobPayloads } from '../shared/jobs.js';

/** What a handler gets beside its payload: the services, and the signal that it should stop. */
export interface JobContext {
  container: Container;
  /** Aborted when the worker shuts down: long work should stop and let the job be retried. */
  signal: AbortSignal;
  /** Ends this run and has the same job (same id) run again in `ms`, with `data` as its payload. */
  runAgainIn(ms: number, data: unknown): Promise<never>;
}

export type JobHandler<K extends JobName> = (data: JobPayloads[K], ctx: JobContext) => Promise<unknown>;
export type HandlerMap = { [K in JobName]: JobHandler<K> };
