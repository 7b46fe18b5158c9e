import { Router } from '@koa/router';
import { h } from 'preact';
import { isAppError } from '../../shared/errors.js';
import type { RouteDeps } from '../routes/route-deps.js';
import type { AppContext, AppState } from '../state.js';
import { receiveSingleFile } from '../upload/receive-file.js';
import type { SitePage, SitePages } from './pages/site-pages.js';
import { DropPage, type DropResult, DropResultPage } from './views/drop-page.js';

/** The public drop page at {SITE_URL}/drop/{token}: one file for the account that asked. */
export function dropRoutes({ services }: RouteDeps, pages: SitePages) {
  const router = new Router<AppState>();
  const drops = services.dropLinks;

  const show = (ctx: AppContext, page: SitePage) => {
    // The token is a capability: never pass it on in a Referer.
    ctx.set('Referrer-Policy', 'no-referrer');
    return pages.render(ctx, page);
  };
  const showResult = (ctx: AppContext, result: DropResult, status?: number) =>
    show(ctx, { title: result.ok ? 'File sent' : result.title, status, view: (frame) => h(DropResultPage, { frame, result }) });

  /**
   * Script (XMLHttpRequest) asks for JSON and gets the error middleware's body on failure; a browser
   * gets a result page with the same status, which offers to try again while the link can still take a file.
   */
  async function answering(ctx: AppContext, title: string, handle: () => Promise<void>) {
    const wantsJson = ctx.accepts(['html', 'json']) === 'json';
    try {
      await handle();
    } catch (err) {
      if (wantsJson || !isAppError(err) || !err.expose) throw err;
      if (typeof err.extra.retryAfter === 'number') ctx.set('Retry-After', String(err.extra.retryAfter));
      const linkEnded = err.status === 404 || err.status === 410 || ctx.method === 'GET';
      await showResult(ctx, { ok: false, title, error: err.message, ...(linkEnded ? {} : { retry: ctx.path }) }, err.status);
    }
  }

  router.get('/drop/:token', (ctx) =>
    answering(ctx, 'This link cannot take a file', async () => {
      const drop = await drops.open(ctx.params.token!);
      await show(ctx, { title: `Send a file to ${drop.username}`, view: (frame) => h(DropPage, { frame, drop: { token: ctx.params.token!, ...drop } }) });
    }),
  );

  // The MCP drop zone posts from its host's sandbox, another origin, with upload progress (so a
  // preflight first); the token is the only credential, so any origin may send without cookies.
  router.options('/drop/:token', (ctx) => {
    ctx.set({ 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': 'POST', 'Access-Control-Max-Age': '600' });
    ctx.status = 204;
  });

  router.post('/drop/:token', (ctx) =>
    answering(ctx, 'File not sent', async () => {
      ctx.set('Access-Control-Allow-Origin', '*');
      const drop = await drops.open(ctx.params.token!);
      await services.uploads.admit(drop.uploader, { via: 'drop', ip: ctx.ip });
      const { file } = await receiveSingleFile(ctx, services.uploads, { ...services.uploads.receiveOptionsFor(drop.uploader.account), maxBytes: drop.maxBytes });
      const result = await drops.complete(drop, file.received, file.originalname);
      const sent = { originalName: result.originalFilename, size: result.sizeBytes, username: drop.username };
      if (ctx.accepts(['html', 'json']) === 'json') ctx.body = { success: true, data: sent };
      else await showResult(ctx, { ok: true, ...sent });
    }),
  );

  return router;
}
