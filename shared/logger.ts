import { AsyncLocalStorage } from 'node:async_hooks';
import { DrizzleQueryError } from 'drizzle-orm';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** The id of the request being served, for every line logged while serving it (docs/decisions.md). */
const requestIds = new AsyncLocalStorage<string>();

/** Runs `serve` so that every line logged inside it, by whatever code, carries `reqId`. */
export function withRequestId<T>(reqId: string, serve: () => T): T {
  return requestIds.run(reqId, serve);
}

function requestIdOfLine(): { reqId?: string } {
  const reqId = requestIds.getStore();
  return reqId === undefined ? {} : { reqId };
}

export function createLogger(level: string, name = 'hfs', destination?: DestinationStream): Logger {
  const options = { name, level, serializers: { err: serializeError }, mixin: requestIdOfLine };
  // stdout written asynchronously: under load many lines share one write (a synchronous write per
  // request line cost a third of serving hot files); pino flushes what is left when the process exits.
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}

/**
 * pino's error serializer, except that a failed query logs its SQL and what the driver said, never
 * its parameters: drizzle's DrizzleQueryError keeps them in `params` and in its message ("Failed
 * query: … params: …"), PGlite's own error in `params`, and they are passwords' hashes, API keys'
 * hashes, sealed secrets. Errors wrapping one (as their `cause`) are cleaned the same way.
 */
function serializeError(err: unknown): unknown {
  if (!hasParams(err)) return pino.stdSerializers.err(err as Error);
  const clean = withoutParams(err as Error);
  const serialized = pino.stdSerializers.err(clean) as unknown as Record<string, unknown>;
  // pino folds a cause into the message and stack; the driver's error is worth its fields (SQLSTATE `code`).
  if (clean instanceof DrizzleQueryError && clean.cause instanceof Error) serialized.cause = driverError(clean.cause);
  return serialized;
}

const MAX_CAUSES = 10;

function hasParams(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < MAX_CAUSES; e = e.cause, depth++) {
    if ('params' in e) return true;
  }
  return false;
}

/** A copy of `err` and its causes without query parameters, in fields or in drizzle's message. */
function withoutParams(err: Error, depth = 0): Error {
  const copy = Object.create(Object.getPrototypeOf(err) as object) as Error;
  for (const key of Object.getOwnPropertyNames(err)) {
    if (key === 'params') continue;
    const { enumerable } = Object.getOwnPropertyDescriptor(err, key)!;
    Object.defineProperty(copy, key, { value: (err as unknown as Record<string, unknown>)[key], enumerable, writable: true, configurable: true });
  }
  if (err instanceof DrizzleQueryError) {
    copy.message = `Failed query: ${err.query}`;
    const frames = err.stack?.indexOf('\n    at ') ?? -1;
    copy.stack = `${err.name}: ${copy.message}${frames >= 0 ? err.stack!.slice(frames) : ''}`;
  }
  if (err.cause instanceof Error && depth < MAX_CAUSES) copy.cause = withoutParams(err.cause, depth + 1);
  return copy;
}

/** PostgreSQL's "Failing row contains (…)" detail lists every column of the row, hashes included. */
function driverError(cause: Error): unknown {
  const serialized = pino.stdSerializers.err(cause) as unknown as Record<string, unknown>;
  if (typeof serialized.detail === 'string' && serialized.detail.startsWith('Failing row contains')) serialized.detail = 'Failing row contains (…)';
  return serialized;
}
