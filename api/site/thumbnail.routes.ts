import { Router } from '@koa/router';
import { THUMBNAIL_PATH } from '../../shared/services/media/thumbnails/thumbnail-keys.js';
import { siteAccountOf } from '../middleware/auth.middleware.js';
import type { RouteDeps } from '../routes/route-deps.js';
import type { AppState } from '../state.js';

// A URL names one content's rendition in one privacy state for good (a replace or a privacy change
// gives new URLs), so any cache may keep it.
const PUBLIC_CACHE = 'public, max-age=31536000, immutable';
// A private file's thumbnail is its owner's: no shared cache keeps it, and every use asks again (304).
const PRIVATE_CACHE = 'private, no-cache';

/** Thumbnails on the website: `/thumbnails/{shortCode}/{version}/{small|preview}.webp`. */
export function thumbnailRoutes({ services }: RouteDeps) {
  const router = new Router<AppState>();

  router.get(`${THUMBNAIL_PATH}/:code/:version/:rendition.webp`, async (ctx) => {
    const { expires, signature } = ctx.query;
    const request = { code: ctx.params.code!, version: ctx.params.version!, rendition: ctx.params.rendition!, expires, signature };
    const thumbnail = await services.thumbnails.find(request, () => siteAccountOf(ctx, services.sessions));
    ctx.set({
      ETag: thumbnail.etag,
      'Cache-Control': thumbnail.isPrivate ? PRIVATE_CACHE : PUBLIC_CACHE,
      'X-Content-Type-Options': 'nosniff',
    });
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    const { body, size } = await services.thumbnails.open(thumbnail);
    ctx.type = 'image/webp';
    ctx.body = body;
    ctx.length = size;
  });

  return router;
}
