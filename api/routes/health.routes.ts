import { Router } from '@koa/router';
import type { ReadinessService } from '../../shared/services/health/readiness.service.js';
import type { AppState } from '../state.js';

/**
 * Probes for load balancers and orchestrators: `GET /healthz` says the process answers (it touches
 * nothing), `GET /readyz` whether it can take uploads now (503 when not). Never cached: a stale
 * answer is a wrong one.
 */
export function healthRoutes(readiness: ReadinessService) {
  const router = new Router<AppState>();
  router.get('/healthz', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const answer = await readiness.check();
    ctx.set('Cache-Control', 'no-store');
    ctx.status = answer.status === 'ready' ? 200 : 503;
    ctx.body = answer;
  });
  return router;
}
