import { Router } from '@koa/router';
import contentDisposition from 'content-disposition';
import { h } from 'preact';
import { z } from 'zod';
import { isAppError } from '../../shared/errors.js';
import type { OpenShareLink } from '../../shared/services/folders/share-link.service.js';
import { validate } from '../../shared/validation.js';
import { albumQuerySchema } from '../routes/album.routes.js';
import type { RouteDeps } from '../routes/route-deps.js';
import type { AppContext, AppState } from '../state.js';
import { type FileHeaderCache, fileSender } from './file-response.js';
import { AlbumHead } from './pages/embed-tags.js';
import type { SitePage, SitePages } from './pages/site-pages.js';
import { AlbumPage } from './views/album-page.js';
import { SharePasswordPage } from './views/share-password-page.js';

const PASS_COOKIE = 'share_pass';
const PASSWORD_HEADER = 'x-share-password';
const passwordForm = z.object({ password: z.string().max(128).default('') });

const wantsPage = (ctx: AppContext) => ctx.accepts(['json', 'html']) === 'html';


/**
 * Share links at {SITE_URL}/l/{token}: a file link serves the file; a folder link an album of the
 * folder's files (private ones included), each at /f/{filename}, and their zip at /download.
 */
export function shareLinkRoutes({ services, urls, config }: RouteDeps, headers: FileHeaderCache, pages: SitePages) {
  const send = fileSender(services.hosted, services.renditions, urls, headers, config.serving);
  const links = services.shareLinks;
  const router = new Router<AppState>({ prefix: '/l/:token' });
  const pathOf = (ctx: AppContext) => `/l/${encodeURIComponent(ctx.params.token!)}`;

  const show = (ctx: AppContext, page: SitePage) => {
    // The token is a capability: never pass it on in a Referer.
    ctx.set('Referrer-Policy', 'no-referrer');
    return pages.render(ctx, page);
  };

  /** The link if the visitor may see it; undefined once the password page has answered instead. */
  async function opened(ctx: AppContext, password = ctx.get(PASSWORD_HEADER) || undefined): Promise<OpenShareLink | undefined> {
    const link = await links.open(ctx.params.token!);
    try {
      await links.authorize(link, { password, cookie: ctx.cookies.get(PASS_COOKIE), ip: ctx.ip });
      return link;
    } catch (err) {
      if (!isAppError(err) || !(err.status === 401 || err.status === 429) || !wantsPage(ctx)) throw err;
      if (typeof err.extra.retryAfter === 'number') ctx.set('Retry-After', String(Math.ceil(err.extra.retryAfter)));
      const error = err.code === 'password_required' ? undefined : err.message;
      await show(ctx, { title: 'Password needed', status: err.status, view: (frame) => h(SharePasswordPage, { frame, action: pathOf(ctx), error }) });
      return undefined;
    }
  }

  const countedBy = (link: OpenShareLink) => ({ beforeWholeBody: () => links.countView(link) });

  router.get('/', async (ctx) => {
    const link = await opened(ctx);
    if (!link) return;
    if (link.file) return send(ctx, link.file, countedBy(link));
    const { page } = validate(albumQuerySchema, ctx.query);
    if (ctx.method === 'GET') await links.countView(link);
    const album = await links.page(link, page);
    // A password link's name and images are for those who gave it: no link preview, even once opened.
    const head = link.hasPassword ? null : h(AlbumHead, { album, cover: await services.embeds.coverOf(album), baseUrl: config.baseUrl });
    // The page never loads the files themselves (each load under the link counts a view): thumbnails only.
    await show(ctx, { title: album.name, head, view: (frame) => h(AlbumPage, { frame, album, countsViews: true }) });
  });

  // The password form: the right one sets the link's cookie (an HMAC of its id) and goes back.
  router.post('/', async (ctx) => {
    const { password } = validate(passwordForm, ctx.request.body ?? {});
    const link = await opened(ctx, password);
    if (!link) return;
    const path = pathOf(ctx);
    ctx.cookies.set(PASS_COOKIE, links.passOf(link), { httpOnly: true, sameSite: 'lax', secure: ctx.secure, path, overwrite: true });
    ctx.status = 303;
    ctx.redirect(path);
  });

  router.get('/f/:filename', async (ctx) => {
    const link = await opened(ctx);
    if (!link) return;
    await send(ctx, await links.fileOf(link, ctx.params.filename!), countedBy(link));
  });

  router.get('/download', async (ctx) => {
    const link = await opened(ctx);
    if (!link) return;
    if (ctx.method === 'GET') await links.countView(link);
    const zip = await links.zip(link);
    ctx.set('Content-Disposition', contentDisposition(`${zip.name}.zip`));
    ctx.set('Cache-Control', 'private, no-store');
    ctx.type = 'application/zip';
    ctx.body = zip.body;
    // After the body: Koa drops the length when a stream is set.
    if (zip.size !== undefined) ctx.length = zip.size;
  });

  return router;
}
