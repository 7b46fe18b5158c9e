import { DelayedError, UnrecoverableError, Worker } from 'bullmq';
import type { Container } from '../shared/container.js';
import { isAppError } from '../shared/errors.js';
import { decodeJobError, encodeJobError } from '../shared/job-errors.js';
import { JOBS, type JobName, QUEUE_CONCURRENCY, type QueueName } from '../shared/jobs.js';
import { lostJobOf, outageOf } from '../shared/dependency-health.js';
import { createRedis } from '../shared/redis.js';
import { drainWorkers } from '../shared/shutdown.js';
import type { HandlerMap, JobHandler } from './handler.js';

// Schedules live in Redis: registered again on every reconnect (Redis may have come back empty) and this often.
const SCHEDULE_REFRESH_MS = 60_000;

export class MissingHandlerError extends Error {}

/** Every job that runs on these queues must have a handler, or the worker does not start at all. */
export function assertHandlers(queues: readonly QueueName[], handlers: Partial<HandlerMap>) {
  const missing = (Object.keys(JOBS) as JobName[]).filter((name) => queues.includes(JOBS[name].queue) && !handlers[name]);
  if (missing.length > 0) throw new MissingHandlerError(`No handler for job(s): ${missing.join(', ')}`);
}

export interface WorkerPool {
  /**
   * Stops taking jobs and waits for the running ones to finish; when `deadline` aborts, cuts them off
   * (drainWorkers). A worker still waiting for Redis closes at once.
   */
  close(deadline?: AbortSignal): Promise<void>;
}

export async function startWorkers(container: Container, queues: readonly QueueName[], handlers: Partial<HandlerMap>): Promise<WorkerPool> {
  assertHandlers(queues, handlers);
  const { config, logger, health } = container;
  const workers = queues.map(
    (queue) =>
      new Worker(
        queue,
        async (job, token, signal) => {
          const handler = handlers[job.name as JobName] as JobHandler<JobName> | undefined;
          if (!handler) throw new UnrecoverableError(`No handler for job ${job.name}`);
          try {
            const runAgainIn = async (ms: number, data: unknown): Promise<never> => {
              await job.updateData(data);
              await job.moveToDelayed(Date.now() + ms, token);
              throw new DelayedError();
            };
            return await handler(job.data, { container, signal: signal ?? new AbortController().signal, runAgainIn });
          } catch (err) {
            if (err instanceof DelayedError) throw err;
            // A client error will not heal by retrying; either way the waiting side gets the AppError back.
            if (isAppError(err)) throw err.status < 500 ? new UnrecoverableError(encodeJobError(err)) : new Error(encodeJobError(err));
            throw err;
          }
        },
        {
          // Redis may be down as the process starts: each Worker waits and runs once it answers.
          connection: createRedis(config.redisUrl, 'worker', health.redis, { connectNow: true }),
          prefix: config.redisPrefix,
          concurrency: queue === 'moderation' ? config.moderation.concurrency : QUEUE_CONCURRENCY[queue],
          // A worker that dies (kill -9, a lost machine) keeps its jobs' locks this long at most; every
          // stalledInterval the other workers look for such jobs and run them again. BullMQ's 30 s
          // defaults kept a URL upload's client waiting for a minute after a crash (config.ts: 10 s, 5 s).
          lockDuration: config.workers.lockDurationMs,
          stalledInterval: config.workers.stalledIntervalMs,
        },
      ),
  );
  const lostJobs = new LostJobs(logger);
  for (const worker of workers) {
    worker.on('failed', (job, err) => {
      // A job that failed because Redis or PostgreSQL is gone is retried; the outage is logged once.
      const dependency = outageOf(err);
      if (dependency) return health[dependency].failed(err);
      // A client's mistake (a URL whose host does not resolve) is one line; stacks are for our own faults.
      const refusal = decodeJobError(err.message);
      if (refusal && refusal.status < 500) logger.info({ job: job?.name, id: job?.id, status: refusal.status, reason: refusal.message }, 'job refused');
      else logger.warn({ err, job: job?.name, id: job?.id }, 'job failed');
    });
    // A worker's errors are its connections' (its jobs' go to 'failed'): one line per outage, not per
    // retry. A job whose keys vanished (an emptied Redis) is that job's trouble, not an outage.
    worker.on('error', (err) => {
      const jobId = lostJobOf(err);
      if (jobId !== undefined) lostJobs.report(worker.name, jobId, err);
      else if (outageOf(err)) health.redis.failed(err);
      else logger.error({ err, queue: worker.name }, 'worker error');
    });
  }
  const schedules = keepSchedules(container, queues);
  // Not awaited: a process started while Redis is down stays up and starts its workers and schedules
  // once Redis answers.
  const ready = new Set<Worker>();
  void Promise.all(workers.map((w) => w.waitUntilReady().then(() => ready.add(w)))).then(
    async () => {
      await schedules.refresh();
      logger.info({ queues }, 'workers started');
    },
    // Closed before Redis ever answered: nothing was started.
    () => undefined,
  );
  return {
    async close(deadline = new AbortController().signal) {
      schedules.stop();
      // One still waiting for Redis has no job to wait for, and BullMQ's pause would wait for its connection.
      await Promise.all([
        drainWorkers(workers.filter((w) => ready.has(w)), deadline),
        ...workers.filter((w) => !ready.has(w)).map((w) => w.close(true)),
      ]);
    },
  };
}

/**
 * Registers the scheduled jobs of these queues now, after every reconnect of the producer connection
 * and every minute: upserting a schedule that exists changes nothing, one that Redis lost comes back
 * (and runs at once).
 */
function keepSchedules(container: Container, queues: readonly QueueName[]) {
  const { jobs, redis, health } = container;
  const refresh = () => jobs.registerSchedules(queues).catch((err: unknown) => health.redis.failed(err));
  const onReady = () => void refresh();
  redis.on('ready', onReady);
  const timer = setInterval(onReady, SCHEDULE_REFRESH_MS).unref();
  return {
    refresh,
    stop() {
      clearInterval(timer);
      redis.off('ready', onReady);
    },
  };
}

// Job ids remembered so that each lost job is logged once (BullMQ reports one at every lock renewal).
const LOST_JOBS_REMEMBERED = 1000;

/** Logs each job whose keys or lock vanished from Redis once, however often BullMQ reports it. */
class LostJobs {
  private readonly seen = new Set<string>();

  constructor(private readonly logger: Container['logger']) {}

  report(queue: string, jobId: string, err: Error): void {
    const key = `${queue}:${jobId}`;
    if (this.seen.has(key)) return;
    if (this.seen.size >= LOST_JOBS_REMEMBERED) this.seen.delete(this.seen.values().next().value!);
    this.seen.add(key);
    this.logger.warn({ queue, id: jobId, reason: err.message }, 'job lost');
  }
}
