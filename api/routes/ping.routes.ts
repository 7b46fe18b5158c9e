import { Router } from '@koa/router';
import type { AppState } from '../state.js';

export function pingRoutes() {
  const router = new Router<AppState>();
  router.get('/ping', (ctx) => {
    ctx.body = { success: true, message: 'pong' };
  });
  return router;
}
