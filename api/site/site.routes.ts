import type { Middleware } from 'koa';
import { AppError } from '../../shared/errors.js';
import type { RouteDeps } from '../routes/route-deps.js';
import type { AppState } from '../state.js';
import { type FileHeaderCache, fileSender } from './file-response.js';
import { hostedRouteOf } from './hosted-paths.js';

/**
 * Hosted files, before any other route, by Host: `{username}.{site host}/{filename}` serves that
 * account's files and nothing else (no API, no pages); on the service's own hosts the standard,
 * anonymous and short URLs are served and every other path goes on to the app; a host that is none
 * of these is 404.
 */
export function hostedFiles({ services, urls, config }: RouteDeps, headers: FileHeaderCache): Middleware<AppState> {
  const send = fileSender(services.hosted, urls, headers, config.serving);
  return async (ctx, next) => {
    const role = urls.hostRole(ctx.hostname);
    const hosted = hostedRouteOf(role, ctx.path);
    const readable = ctx.method === 'GET' || ctx.method === 'HEAD';
    if (role.kind === 'service' && (!hosted || !readable)) return next();
    ctx.state.route = hosted?.route ?? '{subdomain}/:filename';
    if (!hosted || !readable) throw AppError.notFound('Not found');
    await send(ctx, await services.hosted.find(hosted.target));
  };
}
