import { Router } from '@koa/router';
import contentDisposition from 'content-disposition';
import { h } from 'preact';
import { validate } from '../../shared/validation.js';
import { albumQuerySchema } from '../routes/album.routes.js';
import type { RouteDeps } from '../routes/route-deps.js';
import type { AppState } from '../state.js';
import { AlbumHead } from './pages/embed-tags.js';
import type { SitePages } from './pages/site-pages.js';
import { AlbumPage } from './views/album-page.js';

/** Shared albums on the website: the page (`?page=`) and the zip of every listed file. */
export function albumPagesRoutes({ services, config }: RouteDeps, pages: SitePages) {
  const router = new Router<AppState>();

  router.get('/album/:shareId', async (ctx) => {
    const { page } = validate(albumQuerySchema, ctx.query);
    const album = await services.albums.page(ctx.params.shareId!, page);
    const cover = await services.embeds.coverOf(album);
    // SitePages never lets a copy be kept: unsharing must end the album at once.
    await pages.render(ctx, {
      title: album.name,
      head: h(AlbumHead, { album, cover, baseUrl: config.baseUrl }),
      view: (frame) => h(AlbumPage, { frame, album, countsViews: false }),
    });
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

  return router;
}
