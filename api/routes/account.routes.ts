import { Router } from '@koa/router';
import type { Container } from '../../shared/container.js';
import { accountOf, type AppState } from '../state.js';

export function accountRoutes({ services }: Container) {
  const router = new Router<AppState>();
  router.post('/regenerate-api-key', async (ctx) => {
    ctx.body = { success: true, data: await services.accounts.regenerateApiKey(accountOf(ctx).id, ctx.get('x-api-key') || undefined) };
  });
  router.get('/subdomain', async (ctx) => {
    ctx.body = { success: true, data: await services.urlFormats.get(accountOf(ctx)) };
  });
  router.post('/subdomain', async (ctx) => {
    ctx.body = { success: true, data: await services.urlFormats.set(accountOf(ctx), ctx.request.body) };
  });
  return router;
}
