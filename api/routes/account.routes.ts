import { Router } from '@koa/router';
import { z } from 'zod';
import { settingsPatchSchema } from '../../shared/contracts/settings.contract.js';
import { URL_FORMATS } from '../../shared/contracts/values.js';
import { validate } from '../../shared/validation.js';
import { type AppState, principalOf } from '../state.js';
import type { RouteDeps } from './route-deps.js';

export const urlFormatSchema = z.object({
  format: z.enum(URL_FORMATS, { error: 'format must be subdomain, short or custom' }),
});

export function accountRoutes({ services }: RouteDeps) {
  const router = new Router<AppState>();
  router.post('/regenerate-api-key', async (ctx) => {
    ctx.body = { success: true, data: await services.accounts.regenerateApiKey(principalOf(ctx).id, ctx.get('x-api-key') || undefined) };
  });
  router.get('/subdomain', async (ctx) => {
    ctx.body = { success: true, data: await services.urlFormats.get(principalOf(ctx)) };
  });
  router.post('/subdomain', async (ctx) => {
    const { format } = validate(urlFormatSchema, ctx.request.body);
    ctx.body = { success: true, data: await services.urlFormats.set(principalOf(ctx), format) };
  });
  router.get('/settings', async (ctx) => {
    ctx.body = { success: true, data: await services.accounts.settings(principalOf(ctx)) };
  });
  router.patch('/settings', async (ctx) => {
    const changes = validate(settingsPatchSchema, ctx.request.body);
    ctx.body = { success: true, data: await services.accounts.updateSettings(principalOf(ctx), changes) };
  });
  return router;
}
