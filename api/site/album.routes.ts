import { Router } from '@koa/router';
import contentDisposition from 'content-disposition';
import { validate } from '../../shared/validation.js';
import { albumQuerySchema } from '../routes/album.routes.js';
import type { RouteDeps } from '../routes/route-deps.js';
import type { AppState } from '../state.js';
import { ALBUM_CSS, albumDocument } from './pages/album.js';
import { staticAsset } from './static-asset.js';

// No script at all; images come from the files' own hosts (personal subdomains, custom domains).
const ALBUM_CSP = "default-src 'none'; img-src 'self' http: https:; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Shared albums on the website: the page (`?page=`) and the zip of every listed file. */
export function albumPagesRoutes({ services, config }: RouteDeps) {
  const router = new Router<AppState>();

  router.get('/album/:shareId', async (ctx) => {
    const { page } = validate(albumQuerySchema, ctx.query);
    const album = await services.albums.page(ctx.params.shareId!, page);
    ctx.set('Content-Security-Policy', ALBUM_CSP);
    ctx.set('X-Frame-Options', 'DENY');
    // Unsharing must end the album at once, so no copy may be kept.
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = albumDocument(album, await services.embeds.coverOf(album), config.baseUrl);
  });

  router.get('/album/:shareId/download', async (ctx) => {
    const zip = await services.albums.zip(ctx.params.shareId!);
    ctx.set('Content-Disposition', contentDisposition(`${zip.name}.zip`));
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'application/zip';
    ctx.body = zip.body;
    // After the body: Koa drops the length when a stream is set.
    if (zip.size !== undefined) ctx.length = zip.size;
  });

  staticAsset(router, '/assets/album.css', 'text/css', ALBUM_CSS);

  return router;
}
