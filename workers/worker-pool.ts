import { UnrecoverableError, Worker } from 'bullmq';
import type { Container } from '../shared/container.js';
import { isAppError } from '../shared/errors.js';
import { encodeJobError } from '../shared/job-errors.js';
import { JOBS, type JobName, QUEUE_CONCURRENCY, type QueueName } from '../shared/jobs.js';
import { createRedis } from '../shared/redis.js';
import type { HandlerMap, JobHandler } from './handler.js';

export class MissingHandlerError extends Error {}

/** Every job that runs on these queues must have a handler, or the worker does not start at all. */
export function assertHandlers(queues: readonly QueueName[], handlers: Partial<HandlerMap>) {
  const missing = (Object.keys(JOBS) as JobName[]).filter((name) => queues.includes(JOBS[name].queue) && !handlers[name]);
  if (missing.length > 0) throw new MissingHandlerError(`No handler for job(s): ${missing.join(', ')}`);
}

export interface WorkerPool {
  workers: Worker[];
  /** Stops taking jobs and waits for the running ones to finish (with a deadline: drainWorkers). */
  close(): Promise<void>;
}

export async function startWorkers(container: Container, queues: readonly QueueName[], handlers: Partial<HandlerMap>): Promise<WorkerPool> {
  assertHandlers(queues, handlers);
  const { config, logger } = container;
  const workers = queues.map(
    (queue) =>
      new Worker(
        queue,
        async (job, _token, signal) => {
          const handler = handlers[job.name as JobName] as JobHandler<JobName> | undefined;
          if (!handler) throw new UnrecoverableError(`No handler for job ${job.name}`);
          try {
            return await handler(job.data, { container, signal: signal ?? new AbortController().signal });
          } catch (err) {
            // A client error will not heal by retrying; either way the waiting side gets the AppError back.
            if (isAppError(err)) throw err.expose ? new UnrecoverableError(encodeJobError(err)) : new Error(encodeJobError(err));
            throw err;
          }
        },
        { connection: createRedis(config.redisUrl, 'worker'), prefix: config.redisPrefix, concurrency: QUEUE_CONCURRENCY[queue] },
      ),
  );
  for (const worker of workers) {
    worker.on('failed', (job, err) => logger.warn({ err, job: job?.name, id: job?.id }, 'job failed'));
    worker.on('error', (err) => logger.error({ err }, 'worker error'));
  }
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  await container.jobs.registerSchedules(queues);
  logger.info({ queues }, 'workers started');
  return {
    workers,
    async close() {
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}
