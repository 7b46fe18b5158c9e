import { AppError } from './errors.js';
import type { Logger } from './logger.js';

export type Dependency = 'redis' | 'postgres';

/** Seconds a client is told to wait (Retry-After) when Redis or PostgreSQL cannot be reached or did not answer in time. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/**
 * Whether Redis or PostgreSQL answers, as this process last saw it. An outage is logged once when it
 * begins and once when it ends — not once per failed command, request or reconnect attempt.
 */
export class DependencyHealth {
  private downSince: number | undefined;

  constructor(
    readonly dependency: Dependency,
    private readonly logger: Logger,
  ) {}

  get isDown(): boolean {
    return this.downSince !== undefined;
  }

  failed(err: unknown): void {
    if (this.downSince !== undefined) return;
    this.downSince = Date.now();
    this.logger.error({ dependency: this.dependency, reason: reasonOf(err) }, `${this.dependency} unavailable`);
  }

  recovered(): void {
    if (this.downSince === undefined) return;
    const downMs = Date.now() - this.downSince;
    this.downSince = undefined;
    this.logger.info({ dependency: this.dependency, downMs }, `${this.dependency} available again`);
  }
}

export interface Health {
  redis: DependencyHealth;
  postgres: DependencyHealth;
}

export function createHealth(logger: Logger): Health {
  return { redis: new DependencyHealth('redis', logger), postgres: new DependencyHealth('postgres', logger) };
}

/** A Redis call on a request path that did not answer in time. */
export class RedisTimeoutError extends Error {
  override readonly name = 'RedisTimeoutError';
}

/** `work`, or a RedisTimeoutError after `ms` (the work itself is not cancelled: it may still land later). */
export function redisWithin<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisTimeoutError(`${what}: Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

// Node's socket errors, and what pg, pg-pool and ioredis say when a server is gone or will not answer.
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);
const PG_MESSAGES = [/^Connection terminated/, /timeout exceeded when trying to connect/, /^Client has encountered a connection error/, /Connection terminated due to connection timeout/];
const REDIS_MESSAGES = [/^Connection is closed/, /enableOfflineQueue options is false/, /^Command timed out/, /max retries per request/i, /^Stream isn't writeable/];

/**
 * Which dependency an error says is unreachable, if any: walks the error's causes (drizzle wraps the
 * driver's error). A query PostgreSQL refused for its content (a constraint, a syntax error) is not an
 * outage; a server that shuts down, refuses connections or is out of connection slots is.
 */
export function outageOf(err: unknown): Dependency | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (e instanceof RedisTimeoutError || e.name === 'MaxRetriesPerRequestError') return 'redis';
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      // SQLSTATE class 08 (connection exception), 57P01-57P03 (shutting down, cannot connect now), 53300 (too many connections)
      if (/^08...$/.test(code) || /^57P0[1-3]$/.test(code) || code === '53300') return 'postgres';
      // ioredis reports its own socket errors as events, not as a command's rejection.
      if (SOCKET_CODES.has(code)) return 'postgres';
    }
    if (PG_MESSAGES.some((m) => m.test(e.message))) return 'postgres';
    if (REDIS_MESSAGES.some((m) => m.test(e.message))) return 'redis';
  }
  return undefined;
}

/**
 * Whether PostgreSQL cancelled a statement (SQLSTATE 57014, query_canceled): it ran or waited on a
 * lock past DB_STATEMENT_TIMEOUT_MS. The server answers, so this is no outage; the transaction the
 * statement was in has been rolled back.
 */
export function statementTimedOut(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if ((e as { code?: unknown }).code === '57014') return true;
  }
  return false;
}

// BullMQ's words for a job whose hash or lock is no longer in Redis (emptied, restarted, or the lock
// taken over after a stall): 'Missing key for job 7. moveToFinished', 'could not renew lock for job 7'.
const LOST_JOB = /^(?:Missing key|Missing lock|could not renew lock) for job (\S+?)\.?(?: |$)/;

/**
 * The id of the job a BullMQ error says has lost its keys or lock, if it says that: a fact about one
 * job (its work is not recorded; a sweep or a retry finds it again), not a Redis outage.
 */
export function lostJobOf(err: unknown): string | undefined {
  return err instanceof Error ? LOST_JOB.exec(err.message)?.[1] : undefined;
}

export function unavailable(dependency: Dependency): AppError {
  const what = dependency === 'redis' ? 'The job queue' : 'The database';
  return AppError.unavailable(`${what} is briefly unavailable, nothing was changed; retry`, OUTAGE_RETRY_AFTER_SECONDS);
}

export function databaseTooSlow(): AppError {
  return AppError.unavailable('The database did not answer in time; retry', OUTAGE_RETRY_AFTER_SECONDS);
}

/** The error's code or message in one line, for the outage log (never a stack trace, never SQL). */
function reasonOf(err: unknown): string {
  for (let e = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (!(e.cause instanceof Error)) return typeof code === 'string' ? `${code}: ${firstLine(e.message)}` : firstLine(e.message);
  }
  return String(err);
}

function firstLine(message: string): string {
  const line = message.split('\n', 1)[0] ?? '';
  return line.startsWith('Failed query') ? 'query failed' : line.slice(0, 200);
}
