import { Router } from '@koa/router';
import { isAppError } from '../../shared/errors.js';
import type { RouteDeps } from '../routes/route-deps.js';
import type { AppContext, AppState } from '../state.js';
import { receiveSingleFile } from '../upload/receive-file.js';
import { DROP_CSS, DROP_JS } from './pages/drop.assets.js';
import { dropPage, dropResultPage } from './pages/drop.page.js';
import { staticAsset } from './static-asset.js';

const DROP_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

function sendHtml(ctx: AppContext, status: number, body: string) {
  ctx.set('Content-Security-Policy', DROP_CSP);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cache-Control', 'no-store');
  // The token is a capability: never pass it on in a Referer.
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
}

/**
 * Script (XMLHttpRequest) asks for JSON and gets the error middleware's body on failure; a plain
 * form post gets a result page with the same status.
 */
async function answering(ctx: AppContext, handle: () => Promise<void>) {
  const wantsJson = ctx.accepts(['html', 'json']) === 'json';
  try {
    await handle();
  } catch (err) {
    if (wantsJson || !isAppError(err) || !err.expose) throw err;
    if (typeof err.extra.retryAfter === 'number') ctx.set('Retry-After', String(err.extra.retryAfter));
    sendHtml(ctx, err.status, dropResultPage({ ok: false, error: err.message }));
  }
}

/** The public drop page at {SITE_URL}/drop/{token}: one file for the account that asked. */
export function dropRoutes({ services }: RouteDeps) {
  const router = new Router<AppState>();
  const drops = services.dropLinks;

  router.get('/drop/:token', (ctx) =>
    answering(ctx, async () => {
      const drop = await drops.open(ctx.params.token!);
      sendHtml(ctx, 200, dropPage({ token: ctx.params.token!, ...drop }));
    }),
  );

  router.post('/drop/:token', (ctx) =>
    answering(ctx, async () => {
      const drop = await drops.open(ctx.params.token!);
      await services.uploads.admit(drop.uploader, { via: 'drop', ip: ctx.ip });
      const { file } = await receiveSingleFile(ctx, services.uploads, { ...services.uploads.receiveOptionsFor(drop.uploader.account), maxBytes: drop.maxBytes });
      const result = await drops.complete(drop, file.received, file.originalname);
      const sent = { originalName: result.originalFilename, size: result.sizeBytes, username: drop.username };
      if (ctx.accepts(['html', 'json']) === 'json') ctx.body = { success: true, data: sent };
      else sendHtml(ctx, 200, dropResultPage({ ok: true, ...sent }));
    }),
  );

  staticAsset(router, '/assets/drop.js', 'application/javascript', DROP_JS);
  staticAsset(router, '/assets/drop.css', 'text/css', DROP_CSS);

  return router;
}
