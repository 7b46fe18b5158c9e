import type { Middleware } from 'koa';
import { databaseTooSlow, outageOf, statementTimedOut, unavailable, type Health } from '../../shared/dependency-health.js';
import { AppError, isAppError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { AppState } from '../state.js';

/** Maps whatever was thrown to the one error body, `{success: false, error}`. */
function toAppError(err: unknown, health: Health): AppError | undefined {
  if (isAppError(err)) return err;
  // http-errors thrown by Koa itself (ctx.throw, ctx.assert)
  const e = err as { status?: number; expose?: boolean; message?: string };
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    return new AppError(e.status, 'http_error', e.expose && e.message ? e.message : 'Bad request');
  }
  // A statement past DB_STATEMENT_TIMEOUT_MS (a held lock, a slow query): 503 too, but PostgreSQL is up.
  if (statementTimedOut(err)) return databaseTooSlow();
  // Redis or PostgreSQL out of reach: 503, logged once per outage rather than once per request.
  const dependency = outageOf(err);
  if (dependency) {
    health[dependency].failed(err);
    return unavailable(dependency);
  }
  return undefined;
}

export function errorHandler(logger: Logger, health: Health): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const known = toAppError(err, health);
      if (known?.expose) {
        ctx.status = known.status;
        ctx.body = { success: false, error: known.message, ...known.extra };
        const retryAfter = known.extra.retryAfter;
        if (typeof retryAfter === 'number') ctx.set('Retry-After', String(retryAfter));
        return;
      }
      // Unknown failures are logged in full and answered without any internals.
      logger.error({ err }, 'unhandled error');
      ctx.status = known?.status ?? 500;
      ctx.body = {
        success: false,
        error: known?.message ?? 'Internal server error',
        requestId: ctx.state.requestId,
      };
    }
  };
}

/** Last in the chain: nothing matched the request. */
export const notFound: Middleware<AppState> = () => {
  throw AppError.notFound('Route not found');
};
