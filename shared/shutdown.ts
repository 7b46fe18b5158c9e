import type { Worker } from 'bullmq';
import { exitWith, StartupError } from './config.js';
import type { Logger } from './logger.js';

/** Once the deadline has cut off what was left, the rest of the clean-up gets this long. */
const AFTER_DEADLINE_MS = 5_000;
/**
 * One Ctrl-C reaches the process twice, from the terminal (it signals the whole process group) and
 * from npm, which forwards what it got; stopping a systemd unit does the same with SIGTERM. A signal
 * this soon after the first is that same request; a later one is somebody asking again.
 */
export const SAME_REQUEST_MS = 1_000;

/**
 * On SIGTERM or SIGINT runs `stop` once and exits: `stop` stops taking work and waits for what is in
 * flight until `deadline` aborts, `timeoutMs` later (SHUTDOWN_TIMEOUT_MS), then closes what is left
 * by force. Exits 0 after a full drain, 1 when the deadline cut something off (or `stop` resolves
 * false: something it waited for, a child process, was cut off). A second signal exits at once, unless
 * it came within SAME_REQUEST_MS of the first.
 */
export function onShutdown(logger: Logger, timeoutMs: number, stop: (deadline: AbortSignal) => Promise<void | boolean>) {
  let stoppingSince: number | undefined;
  const handler = (signal: NodeJS.Signals) => {
    if (stoppingSince !== undefined) {
      if (performance.now() - stoppingSince < SAME_REQUEST_MS) return;
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stoppingSince = performance.now();
    logger.info({ signal, timeoutMs }, 'shutting down');
    const deadline = new AbortController();
    const timer = setTimeout(() => {
      logger.warn({ timeoutMs }, 'shutdown deadline passed: closing what is left by force');
      deadline.abort();
      setTimeout(() => {
        logger.error({ afterMs: AFTER_DEADLINE_MS }, 'still not stopped after the deadline: exiting');
        process.exit(1);
      }, AFTER_DEADLINE_MS).unref();
    }, timeoutMs);
    stop(deadline.signal).then(
      (drained) => {
        clearTimeout(timer);
        process.exit(deadline.signal.aborted || drained === false ? 1 : 0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

/** Resolves when `work` settles or `deadline` aborts, whichever comes first. */
function untilDeadline(work: Promise<unknown>, deadline: AbortSignal): Promise<void> {
  if (deadline.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      deadline.removeEventListener('abort', done);
      resolve();
    };
    deadline.addEventListener('abort', done);
    work.then(done, done);
  });
}

/**
 * Stops BullMQ workers taking jobs and waits for the running ones; at the deadline their processors'
 * signals abort and the workers close with force (a job cut off is retried once its lock expires).
 */
export async function drainWorkers(workers: readonly Worker[], deadline: AbortSignal): Promise<void> {
  // pause, not close: a close that waits cannot be turned into a forced one later.
  await untilDeadline(Promise.all(workers.map((worker) => worker.pause())), deadline);
  const force = deadline.aborted;
  if (force) for (const worker of workers) worker.cancelAllJobs('shutting down');
  await Promise.all(workers.map((worker) => worker.close(force)));
}

/**
 * Logs an unhandled rejection or uncaught exception with the process it happened in, then exits 1 as
 * Node would. A StartupError (a taken port, say) is the operator's to fix: its one line, no stack trace.
 */
export function exitOnUncaughtErrors(logger: Logger, processName: string) {
  const fatal = (what: string) => (err: unknown) => {
    if (err instanceof StartupError) exitWith(err);
    logger.fatal({ err, process: processName }, what);
    process.exit(1);
  };
  process.on('uncaughtException', fatal('uncaught exception'));
  process.on('unhandledRejection', fatal('unhandled rejection'));
}
