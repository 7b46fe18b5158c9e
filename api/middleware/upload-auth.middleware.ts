import type { Middleware } from 'koa';
import type { Container } from '../../shared/container.js';
import { AppError } from '../../shared/errors.js';
import { SESSION_COOKIE } from '../../shared/services/session.service.js';
import { SITE_SESSION_COOKIE } from '../../shared/services/site-session.service.js';
import type { AppState } from '../state.js';

/**
 * Who may upload: a key in x-api-key (unknown or banned: 403), or else only the website itself
 * (same Origin, plus its visitor cookie for anonymous uploads or the session cookie of a signed-in
 * account); anything else is 401. Then the rate limit of that caller.
 */
export function uploadAuth({ services, rateLimits }: Pick<Container, 'services' | 'rateLimits'>): Middleware<AppState> {
  return async (ctx, next) => {
    const key = ctx.get('x-api-key');
    if (key) {
      const uploader = await services.uploadAuth.resolveKey(key);
      ctx.state.uploader = uploader;
      await rateLimits.uploadsByKey.consume(uploader.account!.id);
      return next();
    }
    const site = services.siteSessions;
    const sameOrigin = site.isSameOrigin(ctx.get('origin') || undefined, ctx.get('referer') || undefined);
    const sessionToken = ctx.cookies.get(SESSION_COOKIE);
    const principal = sameOrigin && sessionToken ? await services.sessions.principalOf(sessionToken) : undefined;
    if (principal) {
      ctx.state.uploader = services.uploadAuth.uploaderFor(principal, null);
      await rateLimits.uploadsByKey.consume(principal.id);
      return next();
    }
    if (!sameOrigin || !site.verify(ctx.cookies.get(SITE_SESSION_COOKIE))) {
      throw AppError.unauthorized('An x-api-key header is required for uploads from outside the website');
    }
    ctx.state.uploader = { account: null, folderId: null };
    await rateLimits.uploadsByIp.consume(ctx.ip);
    return next();
  };
}
