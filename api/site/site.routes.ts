import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { AppError } from '../../shared/errors.js';
import type { RouteDeps } from '../routes/route-deps.js';
import type { AppState } from '../state.js';
import { fileSender } from './file-response.js';

/** Public URLs of hosted files on the site's own host: standard, anonymous and short. */
export function siteRoutes({ services, urls, config }: RouteDeps) {
  const hosted = services.hosted;
  const send = fileSender(hosted, urls, config.cacheControlPublic);
  const router = new Router<AppState>();
  router.get('/u/:username/:filename', async (ctx) => {
    await send(ctx, await hosted.byUsername(ctx.params.username!, ctx.params.filename!));
  });
  router.get('/f/:filename', async (ctx) => {
    await send(ctx, await hosted.byAnonymousName(ctx.params.filename!));
  });
  router.get('/s/:code', async (ctx) => {
    await send(ctx, await hosted.byShortCode(ctx.params.code!));
  });
  return router;
}

/**
 * Routing by Host, before any other route: `{username}.{site host}/{filename}` serves that account's
 * files and nothing else (no API, no pages); the service's own hosts go on to the app; a host that
 * is none of these is 404.
 */
export function hostRouting({ services, urls, config }: RouteDeps): Middleware<AppState> {
  const hosted = services.hosted;
  const send = fileSender(hosted, urls, config.cacheControlPublic);
  return async (ctx, next) => {
    const role = urls.hostRole(ctx.hostname);
    if (role.kind === 'service') return next();
    ctx.state.route = '{subdomain}/:filename';
    const filename = safeDecode(ctx.path.slice(1));
    if (role.kind === 'unknown' || !['GET', 'HEAD'].includes(ctx.method) || !filename || filename.includes('/')) {
      throw AppError.notFound('Not found');
    }
    await send(ctx, await hosted.byUsername(role.username, filename));
  };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}
