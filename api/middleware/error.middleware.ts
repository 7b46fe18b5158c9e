import type { Middleware } from 'koa';
import { databaseTooSlow, outageOf, statementTimedOut, unavailable, type Health } from '../../shared/dependency-health.js';
import { AppError, isAppError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { AppContext, AppState } from '../state.js';

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

/** Where a browser's failed page request gets a page instead of the JSON body (SitePages). */
export interface ErrorPages {
  wantsPage(ctx: AppContext): boolean;
  renderError(ctx: AppContext, status: number, message: string): Promise<void>;
}

export function errorHandler(logger: Logger, health: Health, pages?: ErrorPages): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const known = toAppError(err, health);
      const retryAfter = known?.extra.retryAfter;
      if (typeof retryAfter === 'number') ctx.set('Retry-After', String(retryAfter));
      // Unknown failures are logged in full and answered without any internals.
      if (!known?.expose) logger.error({ err }, 'unhandled error');
      const status = known?.status ?? 500;
      const message = known?.message ?? 'Internal server error';
      if (pages?.wantsPage(ctx)) {
        try {
          return await pages.renderError(ctx, status, message);
        } catch (pageErr) {
          // A page that cannot be drawn (the app not built, say) falls back to the JSON body.
          logger.error({ err: pageErr }, 'error page failed');
        }
      }
      ctx.status = status;
      ctx.body = known?.expose ? { success: false, error: message, ...known.extra } : { success: false, error: message, requestId: ctx.state.requestId };
    }
  };
}

/** Last in the chain: nothing matched the request. */
export const notFound: Middleware<AppState> = () => {
  throw AppError.notFound('Route not found');
};
