import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { Logger } from './logger.js';

/** What a child sends its primary once it serves. */
const READY = 'process-cluster:ready';
// A child that crashes is replaced after this, doubled on each crash in a row up to the maximum,
// so a child that cannot start costs a line every half minute rather than a hot loop.
const FIRST_RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;
// A child that ran this long before it crashed is replaced after the first delay again.
const STABLE_AFTER_MS = 60_000;

export interface ProcessClusterOptions {
  /** How many children to keep running. */
  size: number;
  /** What they are, for the log: "web". */
  name: string;
  logger: Logger;
  /** The entry point they run (default: this process's own); they get this process's Node flags. */
  exec?: string;
  /** Variables set for them on top of this process's environment. */
  env?: Record<string, string>;
}

export interface ProcessCluster {
  /** Resolves once each of the first `size` children serves (one that crashes first is replaced). */
  listening: Promise<void>;
  /**
   * Sends every child SIGTERM; each drains with its own SHUTDOWN_TIMEOUT_MS. Resolves once all have
   * exited: true when every one drained (exited 0), false when one was cut off or crashed.
   */
  close(deadline: AbortSignal): Promise<boolean>;
}

/**
 * Runs `size` children of this process with node:cluster: the listening socket stays with this
 * process, which hands each new connection to the next child in turn. A child that exits is
 * replaced, with a growing delay, except while closing. This process itself serves nothing.
 */
export function startProcessCluster({ size, name, logger, exec, env }: ProcessClusterOptions): ProcessCluster {
  const cpus = availableParallelism();
  if (size > cpus) {
    logger.warn({ processes: size, cpus }, `${size} ${name} processes on ${cpus} CPUs: the extra ones only add memory and contention; set WEB_CONCURRENCY to ${cpus} or fewer`);
  }
  cluster.setupPrimary(exec ? { exec } : {});
  const children = new Set<Worker>();
  const restarts = new Set<NodeJS.Timeout>();
  let closing = false;
  let allDrained = true;
  let whenAllExited: (() => void) | undefined;
  let startedOnce = 0;
  let allListening!: () => void;
  const listening = new Promise<void>((resolve) => (allListening = resolve));

  const fork = (restartDelayMs: number) => {
    const child = cluster.fork(env);
    const forkedAt = performance.now();
    let ready = false;
    children.add(child);
    child.on('message', (message: unknown) => {
      if (message !== READY || ready) return;
      ready = true;
      if (++startedOnce !== size) return;
      logger.info({ processes: size, pids: [...children].map((c) => c.process.pid) }, `${name} processes listening`);
      allListening();
    });
    child.on('exit', (code, signal) => {
      children.delete(child);
      if (closing) {
        // Stopped before it served, it had nothing to drain.
        const drained = code === 0 || (!ready && signal === 'SIGTERM');
        if (!drained) allDrained = false;
        if (children.size === 0) whenAllExited?.();
        return;
      }
      const delayMs = performance.now() - forkedAt >= STABLE_AFTER_MS ? FIRST_RESTART_DELAY_MS : restartDelayMs;
      logger.error({ child: child.process.pid, code, signal, restartInMs: delayMs }, `a ${name} process exited: starting another`);
      const timer = setTimeout(() => {
        restarts.delete(timer);
        fork(Math.min(delayMs * 2, MAX_RESTART_DELAY_MS));
      }, delayMs);
      restarts.add(timer);
    });
  };
  for (let i = 0; i < size; i++) fork(FIRST_RESTART_DELAY_MS);
  // However this process ends (a second signal exits at once), no child outlives it.
  process.on('exit', () => children.forEach((child) => child.process.kill('SIGKILL')));

  return {
    listening,
    async close() {
      closing = true;
      restarts.forEach(clearTimeout);
      restarts.clear();
      const exited = new Promise<void>((resolve) => (children.size === 0 ? resolve() : (whenAllExited = resolve)));
      // No second signal at the deadline: each child cuts itself off at its own, a moment after ours.
      children.forEach((child) => child.process.kill('SIGTERM'));
      await exited;
      return allDrained;
    },
  };
}

/** Tells the primary, if this process is a cluster child, that it serves now. */
export function reportReady(): void {
  if (cluster.isWorker) process.send?.(READY);
}
