import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { withRequestId, type Logger } from '../../shared/logger.js';
import type { AppState } from '../state.js';
import type { WebMetrics } from '../web-metrics.js';

const INCOMING_ID = /^[A-Za-z0-9._-]{8,64}$/;
// Probes come every few seconds from every load balancer: at info they would bury the real requests.
const PROBE_PATHS = new Set(['/healthz', '/readyz']);

/**
 * What every answered request leaves behind, whoever answered it (the app or the hot-file fast
 * path): an id (kept from X-Request-Id when sane), one log line, and the request metrics under the
 * route pattern that matched.
 */
export class RequestRecorder {
  constructor(
    private readonly logger: Logger,
    private readonly metrics: WebMetrics,
  ) {}

  idFor(incoming: string | undefined): string {
    return incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
  }

  record(reqId: string, method: string, path: string, route: string, status: number, ms: number): void {
    // The path only: query strings may carry secrets (apiKey, token).
    this.logger[PROBE_PATHS.has(path) ? 'debug' : 'info']({ reqId, method, path, status, ms: Math.round(ms) }, 'request');
    // The pattern, not the path: one series per route, whatever the filenames.
    this.metrics.observeRequest(method, route, status, ms / 1000);
  }
}

/**
 * Gives every request of the app its id, answered with it and on every line logged while serving it
 * (the services' too), and records it.
 */
export function requestContext(recorder: RequestRecorder): Middleware<AppState> {
  return (ctx, next) => {
    const requestId = recorder.idFor(ctx.get('x-request-id'));
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    return withRequestId(requestId, async () => {
      const started = performance.now();
      try {
        await next();
        // Time to the first byte of the answer, for operators' tools (and the benchmarks).
        ctx.set('Server-Timing', `app;dur=${(performance.now() - started).toFixed(1)}`);
      } finally {
        const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? ctx.state.route ?? 'unmatched';
        recorder.record(requestId, ctx.method, ctx.path, route, ctx.status, performance.now() - started);
      }
    });
  };
}
