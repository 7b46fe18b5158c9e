import type { Middleware } from 'koa';
import { AppError } from '../../shared/errors.js';
import type { RouteDeps } from '../routes/route-deps.js';
import type { AppContext, AppState } from '../state.js';
import { type FileHeaderCache, fileSender } from './file-response.js';
import { hostedRouteOf, servedAs, siteHostOf } from './hosted-paths.js';

const ACME_CHALLENGE = /^\/\.well-known\/acme-challenge\/([^/]+)$/;

function answerChallenge(ctx: AppContext, answer: string | null) {
  ctx.state.route = '/.well-known/acme-challenge/:token';
  if (!answer) throw AppError.notFound('Not found');
  ctx.type = 'text/plain';
  ctx.body = answer;
}

function redirectToHttps(ctx: AppContext, httpsPort: number | undefined) {
  ctx.state.route = '{custom domain}/*';
  const port = httpsPort && httpsPort !== 443 ? `:${httpsPort}` : '';
  ctx.status = 301;
  ctx.redirect(`https://${ctx.hostname}${port}${ctx.url}`);
}

/**
 * Hosted files, before any other route, by Host: `{username}.{site host}/{filename}` serves that
 * account's files and nothing else (no API, no pages); on the service's own hosts the standard,
 * anonymous and short URLs are served and every other path goes on to the app; an active custom
 * domain serves its account's files like the subdomain (over HTTPS); a host that is none of these is 404.
 */
export function hostedFiles({ services, urls, config }: RouteDeps, headers: FileHeaderCache): Middleware<AppState> {
  const send = fileSender(services.hosted, services.renditions, urls, headers, config.serving);
  return async (ctx, next) => {
    const host = await siteHostOf(urls, services.domainDirectory, ctx.hostname);
    if (host.kind === 'custom') {
      const challenge = ACME_CHALLENGE.exec(ctx.path);
      if (challenge) return answerChallenge(ctx, await services.customDomains.challengeAnswer(challenge[1]!));
      // A custom domain is served over HTTPS only; plain HTTP is for the CA's challenges.
      if (!ctx.secure) return redirectToHttps(ctx, config.httpsPort);
    }
    const role = servedAs(host);
    const hosted = hostedRouteOf(role, ctx.path);
    const readable = ctx.method === 'GET' || ctx.method === 'HEAD';
    if (role.kind === 'service' && (!hosted || !readable)) return next();
    ctx.state.route = hosted?.route ?? '{subdomain}/:filename';
    if (!hosted || !readable) throw AppError.notFound('Not found');
    await send(ctx, await services.hosted.find(hosted.target));
  };
}
