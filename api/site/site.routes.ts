import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import type { Container } from '../../shared/container.js';
import type { AppState } from '../state.js';
import { fileSender } from './file-response.js';

/** Public URLs of hosted files on the site's own host: standard, anonymous and short. */
export function siteRoutes({ services, urls, config }: Container) {
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
 * `{username}.{site host}/{filename}`: a personal subdomain serves that account's files and nothing
 * else (no API, no pages), so it is decided before any other route.
 */
export function subdomainFiles({ services, urls, config }: Container): Middleware<AppState> {
  const hosted = services.hosted;
  const send = fileSender(hosted, urls, config.cacheControlPublic);
  return async (ctx, next) => {
    const username = hosted.usernameOfHost(ctx.host);
    if (!username) return next();
    const filename = safeDecode(ctx.path.slice(1));
    if (!['GET', 'HEAD'].includes(ctx.method) || !filename || filename.includes('/')) {
      ctx.status = 404;
      ctx.body = { success: false, error: 'Not found' };
      return;
    }
    await send(ctx, await hosted.byUsername(username, filename));
  };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}
