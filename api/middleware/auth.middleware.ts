import type { Middleware } from 'koa';
import { AppError } from '../../shared/errors.js';
import type { Scope } from '../../shared/scopes.js';
import type { CredentialService } from '../../shared/services/accounts/credential.service.js';
import { assertScope } from '../../shared/services/accounts/credential.service.js';
import { SESSION_COOKIE, type SessionService } from '../../shared/services/accounts/session.service.js';
import type { Principal } from '../../shared/principal.js';
import type { SiteSessionService } from '../../shared/services/accounts/site-session.service.js';
import type { AppContext, AppState } from '../state.js';

/** The account signed in on the website (its session cookie), if any. */
export async function siteAccountOf(ctx: AppContext, sessions: SessionService): Promise<Principal | undefined> {
  const token = ctx.cookies.get(SESSION_COOKIE);
  return token ? sessions.principalOf(token) : undefined;
}

/** The token of `Authorization: Bearer …`, if the request has one. */
export function bearerOf(ctx: AppContext): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
}

/**
 * The account behind the request: its primary key or a personal access token in x-api-key, a token
 * or a session token from sign-in as `Authorization: Bearer` — or the website's session cookie: for
 * reads, and for changes only when the browser says the request comes from the site itself (its
 * Origin header), so another site cannot act with it. Missing or unknown is 401. (Folder keys never
 * pass here.) Leaves its principal on ctx.state, and a token's scopes, which `needs` checks.
 */
export function requireAccount(services: { credentials: CredentialService; siteSessions: SiteSessionService }): Middleware<AppState> {
  return async (ctx, next) => {
    const key = ctx.get('x-api-key');
    const cookieAllowed = ctx.method === 'GET' || services.siteSessions.isSameOrigin(ctx.get('origin') || undefined, undefined);
    const bearer = bearerOf(ctx) ?? (cookieAllowed ? ctx.cookies.get(SESSION_COOKIE) : undefined);
    if (!key && !bearer) throw AppError.unauthorized('Missing x-api-key header');
    const credential = key ? await services.credentials.byKey(key) : await services.credentials.byBearer(bearer!);
    if (!credential) throw AppError.unauthorized(key ? 'Invalid API key' : 'Invalid or expired session');
    ctx.state.principal = credential.principal;
    ctx.state.scopes = credential.scopes;
    await next();
  };
}

/**
 * The scope a route needs of a personal access token (403 with `requiredScope` without it); the
 * primary key and sessions pass. A route that declares none refuses tokens (see principalOf).
 */
export function needs(scope: Scope): Middleware<AppState> {
  return (ctx, next) => {
    assertScope(ctx.state, scope);
    ctx.state.scopeChecked = true;
    return next();
  };
}
