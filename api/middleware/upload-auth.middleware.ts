import type { Middleware } from 'koa';
import type { Container } from '../../shared/container.js';
import { AppError } from '../../shared/errors.js';
import { SESSION_COOKIE } from '../../shared/services/session.service.js';
import { SITE_SESSION_COOKIE } from '../../shared/services/site-session.service.js';
import type { Uploader } from '../../shared/services/upload.service.js';
import type { AppContext, AppState } from '../state.js';

type UploadDeps = Pick<Container, 'services' | 'rateLimits'>;

export interface IdentifiedUploader {
  uploader: Uploader;
  /** an anonymous website visitor's cookie, which alone tells two visitors apart */
  visitor?: string;
}

/**
 * Who may upload: a key in x-api-key (unknown or banned: 403), a session as `Authorization: Bearer`,
 * or else only the website itself (same Origin, plus its visitor cookie for anonymous uploads or
 * the session cookie of a signed-in account); anything else is 401.
 */
export async function identifyUploader(ctx: AppContext, { services }: Pick<UploadDeps, 'services'>): Promise<IdentifiedUploader> {
  const key = ctx.get('x-api-key');
  if (key) return { uploader: await services.uploadAuth.resolveKey(key) };
  const bearer = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
  const bearerPrincipal = bearer ? await services.sessions.principalOf(bearer) : undefined;
  if (bearer && !bearerPrincipal) throw AppError.unauthorized('Invalid or expired session');
  if (bearerPrincipal) return { uploader: services.uploadAuth.uploaderFor(bearerPrincipal, null) };
  const site = services.siteSessions;
  const sameOrigin = site.isSameOrigin(ctx.get('origin') || undefined, ctx.get('referer') || undefined);
  const sessionToken = ctx.cookies.get(SESSION_COOKIE);
  const principal = sameOrigin && sessionToken ? await services.sessions.principalOf(sessionToken) : undefined;
  if (principal) return { uploader: services.uploadAuth.uploaderFor(principal, null) };
  const visitor = ctx.cookies.get(SITE_SESSION_COOKIE);
  if (!sameOrigin || !visitor || !site.verify(visitor)) {
    throw AppError.unauthorized('An x-api-key header is required for uploads from outside the website');
  }
  return { uploader: { account: null, folderId: null }, visitor };
}

/** Takes one upload from the caller's rate limit: its account's, or the visitor's address's. */
export async function consumeUploadRate(ctx: AppContext, { uploader }: IdentifiedUploader, { rateLimits }: Pick<UploadDeps, 'rateLimits'>) {
  if (uploader.account) await rateLimits.uploadsByKey.consume(uploader.account.id);
  else await rateLimits.uploadsByIp.consume(ctx.ip);
}

/** The uploader of a one-request upload, after its rate limit. */
export function uploadAuth(deps: UploadDeps): Middleware<AppState> {
  return async (ctx, next) => {
    const identified = await identifyUploader(ctx, deps);
    ctx.state.uploader = identified.uploader;
    await consumeUploadRate(ctx, identified, deps);
    return next();
  };
}
