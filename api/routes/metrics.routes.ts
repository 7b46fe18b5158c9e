import { Router } from '@koa/router';
import { safeEqual } from '../../shared/crypto.js';
import { AppError } from '../../shared/errors.js';
import type { AppState } from '../state.js';
import type { WebMetrics } from '../web-metrics.js';

/** `GET /metrics` for Prometheus; behind `Authorization: Bearer <METRICS_TOKEN>` when one is set. */
export function metricsRoutes(metrics: WebMetrics, token: string | undefined) {
  const router = new Router<AppState>();
  router.get('/metrics', async (ctx) => {
    if (token && !safeEqual(ctx.get('authorization'), `Bearer ${token}`)) {
      ctx.set('WWW-Authenticate', 'Bearer');
      throw AppError.unauthorized('A bearer token is required for metrics');
    }
    const { contentType, text } = await metrics.render();
    ctx.type = contentType;
    ctx.body = text;
  });
  return router;
}
