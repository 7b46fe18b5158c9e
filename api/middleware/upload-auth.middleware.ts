import type { Middleware } from 'koa';
import type { Container } from '../../shared/container.js';
import { AppError } from '../../shared/errors.js';
import { isAccessToken } from '../../shared/services/accounts/access-token.service.js';
import { SESSION_COOKIE } from '../../shared/services/accounts/session.service.js';
import { SITE_SESSION_COOKIE } from '../../shared/services/accounts/site-session.service.js';
import type { Uploader } from '../../shared/services/uploads/upload.service.js';
import type { AppContext, AppState } from '../state.js';
import { bearerOf } from './auth.middleware.js';

type UploadDeps = Pick<Container, 'services'>;

export interface IdentifiedUploader {
  uploader: Uploader;
  /** an anonymous website visitor's cookie, which alone tells two visitors apart */
  visitor?: string;
}

/**
 * Who may upload: a key in x-api-key (unknown or banned: 403), a session or a personal access token
 * (files:write) as `Authorization: Bearer`,
 * or else only the website itself (same Origin, plus its visitor cookie for anonymous uploads or
 * the session cookie of a signed-in account); anything else is 401.
 */
export async function identifyUploader(ctx: AppContext, { services }: UploadDeps): Promise<IdentifiedUploader> {
  const key = ctx.get('x-api-key');
  if (key) return { uploader: await services.uploadAuth.resolveKey(key) };
  const bearer = bearerOf(ctx);
  // A personal access token is a key whichever header carries it.
  if (bearer && isAccessToken(bearer)) return { uploader: await services.uploadAuth.resolveKey(bearer) };
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

/** The uploader of a one-request upload, once admitted (rate limit, plan, quota). */
export function uploadAuth(deps: UploadDeps): Middleware<AppState> {
  return async (ctx, next) => {
    const { uploader } = await identifyUploader(ctx, deps);
    await deps.services.uploads.admit(uploader, { ip: ctx.ip });
    ctx.state.uploader = uploader;
    return next();
  };
}
