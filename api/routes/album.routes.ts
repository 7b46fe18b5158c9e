import { Router } from '@koa/router';
import { z } from 'zod';
import { validate } from '../../shared/validation.js';
import type { AppState } from '../state.js';
import type { RouteDeps } from './route-deps.js';

/** `?page=` of an album, from 1; the JSON and the HTML album read it alike. */
export const albumQuerySchema = z.object({
  page: z.coerce.number({ error: 'page must be a whole number from 1' }).int('page must be a whole number from 1').min(1, 'page must be a whole number from 1').max(1_000_000).default(1),
});

/** Shared albums as JSON, for anyone with the link (no key). */
export function albumRoutes({ services }: RouteDeps) {
  const router = new Router<AppState>();

  router.get('/album/:shareId', async (ctx) => {
    const { page } = validate(albumQuerySchema, ctx.query);
    const { cover: _cover, ...album } = await services.albums.page(ctx.params.shareId!, page);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { success: true, data: album };
  });

  return router;
}
