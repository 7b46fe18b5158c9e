import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../shared/logger.js';
import type { AppState } from '../state.js';
import type { WebMetrics } from '../web-metrics.js';

const INCOMING_ID = /^[A-Za-z0-9._-]{8,64}$/;

/**
 * Gives every request an id (kept from X-Request-Id when sane), answered and logged with it, and
 * counts it in the request metrics under the route pattern that matched.
 */
export function requestContext(logger: Logger, metrics: WebMetrics): Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = INCOMING_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    try {
      await next();
      // Time to the first byte of the answer, for operators' tools (and the benchmarks).
      ctx.set('Server-Timing', `app;dur=${(performance.now() - started).toFixed(1)}`);
    } finally {
      const ms = performance.now() - started;
      // The path only: query strings may carry secrets (apiKey, token).
      logger.info({ reqId: requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms) }, 'request');
      // The pattern, not the path: one series per route, whatever the filenames.
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? ctx.state.route ?? 'unmatched';
      metrics.observeRequest(ctx.method, route, ctx.status, ms / 1000);
    }
  };
}
