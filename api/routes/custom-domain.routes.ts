import { Router } from '@koa/router';
import { type AppState, principalOf } from '../state.js';
import type { RouteDeps } from './route-deps.js';

/** The account's own domain (Pro): the records to publish, their checks, the certificate. */
export function customDomainRoutes({ services }: RouteDeps) {
  const router = new Router<AppState>({ prefix: '/custom-domain' });

  router.get('/', async (ctx) => {
    ctx.body = { success: true, data: await services.customDomains.get(principalOf(ctx)) };
  });

  router.post('/', async (ctx) => {
    ctx.body = { success: true, data: await services.customDomains.add(principalOf(ctx), (ctx.request.body ?? {}) as { domain?: unknown }) };
  });

  router.post('/verify', async (ctx) => {
    ctx.body = { success: true, data: await services.customDomains.verify(principalOf(ctx)) };
  });

  router.delete('/', async (ctx) => {
    await services.customDomains.remove(principalOf(ctx));
    ctx.body = { success: true, message: 'Custom domain removed; custom-style links use your subdomain again' };
  });

  return router;
}
