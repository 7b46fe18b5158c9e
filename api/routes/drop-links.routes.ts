import { Router } from '@koa/router';
import { z } from 'zod';
import { createDropLinkSchema, MAX_DROP_WAIT_SECONDS } from '../../shared/services/folders/drop-link.service.js';
import type { NotificationHub } from '../../shared/services/notifications/notification-hub.js';
import { validate } from '../../shared/validation.js';
import { needs } from '../middleware/auth.middleware.js';
import { type AppContext, type AppState, principalOf } from '../state.js';
import type { RouteDeps } from './route-deps.js';

export const waitSchema = z.object({
  wait: z.coerce.number().int().min(0).max(MAX_DROP_WAIT_SECONDS, `wait is at most ${MAX_DROP_WAIT_SECONDS} seconds`).default(0),
});

/** Aborts when the client goes away, so a held request stops waiting. */
function closedSignal(ctx: AppContext): AbortSignal {
  const controller = new AbortController();
  ctx.res.once('close', () => controller.abort());
  return controller.signal;
}

/** File drop links: ask someone without an account for one file (the page is api/site/drop.routes.ts). */
export function dropLinksRoutes({ services }: RouteDeps, hub: NotificationHub) {
  const router = new Router<AppState>({ prefix: '/drop-links' });

  router.post('/', needs('files:write'), async (ctx) => {
    const link = await services.dropLinks.create(principalOf(ctx), validate(createDropLinkSchema, ctx.request.body ?? {}));
    ctx.body = { success: true, data: link };
  });

  router.get('/', needs('files:read'), async (ctx) => {
    ctx.body = { success: true, data: { dropLinks: await services.dropLinks.list(principalOf(ctx)) } };
  });

  router.get('/:id', needs('files:read'), async (ctx) => {
    const { wait } = validate(waitSchema, ctx.query);
    const options = wait > 0 ? { waitSeconds: wait, arrivals: hub, signal: closedSignal(ctx) } : undefined;
    ctx.body = { success: true, data: await services.dropLinks.get(principalOf(ctx), ctx.params.id!, options) };
  });

  router.delete('/:id', needs('files:write'), async (ctx) => {
    await services.dropLinks.cancel(principalOf(ctx), ctx.params.id!);
    ctx.body = { success: true, message: 'Drop link cancelled' };
  });

  return router;
}
