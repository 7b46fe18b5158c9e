import { Router } from '@koa/router';
import { createShareLinkSchema } from '../../shared/services/folders/share-link.service.js';
import { validate } from '../../shared/validation.js';
import { type AppState, principalOf } from '../state.js';
import type { RouteDeps } from './route-deps.js';

/** Share links of one file or folder (the link itself is served by api/site/share.routes.ts). */
export function shareLinksRoutes({ services }: RouteDeps) {
  const router = new Router<AppState>({ prefix: '/share-links' });

  router.post('/', async (ctx) => {
    ctx.body = { success: true, data: await services.shareLinks.create(principalOf(ctx), validate(createShareLinkSchema, ctx.request.body ?? {})) };
  });

  router.get('/', async (ctx) => {
    ctx.body = { success: true, data: await services.shareLinks.list(principalOf(ctx)) };
  });

  router.delete('/:id', async (ctx) => {
    await services.shareLinks.revoke(principalOf(ctx), ctx.params.id!);
    ctx.body = { success: true, message: 'Share link revoked' };
  });

  return router;
}
