import { Router } from '@koa/router';
import { createWebhookSchema, updateWebhookSchema } from '../../shared/contracts/webhook.contract.js';
import { validate } from '../../shared/validation.js';
import { type AppState, principalOf } from '../state.js';
import type { RouteDeps } from './route-deps.js';

/** The account's webhook endpoints and their deliveries (primary key or session only: no access token). */
export function webhooksRoutes({ services }: RouteDeps) {
  const router = new Router<AppState>({ prefix: '/webhooks' });

  router.post('/', async (ctx) => {
    ctx.body = { success: true, data: await services.webhooks.create(principalOf(ctx), validate(createWebhookSchema, ctx.request.body ?? {})) };
  });

  router.get('/', async (ctx) => {
    ctx.body = { success: true, data: await services.webhooks.list(principalOf(ctx)) };
  });

  router.patch('/:id', async (ctx) => {
    ctx.body = { success: true, data: await services.webhooks.update(principalOf(ctx), ctx.params.id!, validate(updateWebhookSchema, ctx.request.body ?? {})) };
  });

  router.delete('/:id', async (ctx) => {
    await services.webhooks.delete(principalOf(ctx), ctx.params.id!);
    ctx.body = { success: true, message: 'Webhook endpoint deleted' };
  });

  router.post('/:id/rotate-secret', async (ctx) => {
    ctx.body = { success: true, data: await services.webhooks.rotateSecret(principalOf(ctx), ctx.params.id!) };
  });

  router.post('/:id/test', async (ctx) => {
    ctx.body = { success: true, data: await services.webhooks.test(principalOf(ctx), ctx.params.id!) };
  });

  router.get('/:id/deliveries', async (ctx) => {
    ctx.body = { success: true, data: await services.webhooks.deliveries(principalOf(ctx), ctx.params.id!) };
  });

  return router;
}
