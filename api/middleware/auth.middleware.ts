import type { Middleware } from 'koa';
import { AppError } from '../../shared/errors.js';
import type { AccountService } from '../../shared/services/accounts/account.service.js';
import { SESSION_COOKIE, type SessionService } from '../../shared/services/accounts/session.service.js';
import type { Principal } from '../../shared/principal.js';
import type { SiteSessionService } from '../../shared/services/accounts/site-session.service.js';
import type { AppContext, AppState } from '../state.js';

/** The account signed in on the website (its session cookie), if any. */
export async function siteAccountOf(ctx: AppContext, sessions: SessionService): Promise<Principal | undefined> {
  const token = ctx.cookies.get(SESSION_COOKIE);
  return token ? sessions.principalOf(token) : undefined;
}

/**
 * The account behind the request: its primary key in x-api-key, or a session token from sign-in
 * as `Authorization: Bearer` — or the website's session cookie: for reads, and for changes only
 * when the browser says the request comes from the site itself (its Origin header), so another
 * site cannot act with it. Missing or unknown is 401. (Folder keys never pass here.) Leaves its
 * principal on ctx.state.
 */
export function requireAccount(accounts: AccountService, sessions: SessionService, siteSessions: SiteSessionService): Middleware<AppState> {
  return async (ctx, next) => {
    const key = ctx.get('x-api-key');
    const cookieAllowed = ctx.method === 'GET' || siteSessions.isSameOrigin(ctx.get('origin') || undefined, undefined);
    const cookie = cookieAllowed ? ctx.cookies.get(SESSION_COOKIE) : undefined;
    const sessionToken = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1] ?? cookie;
    if (!key && !sessionToken) throw AppError.unauthorized('Missing x-api-key header');
    const principal = key ? await accounts.findByApiKey(key) : await sessions.principalOf(sessionToken!);
    if (!principal) throw AppError.unauthorized(key ? 'Invalid API key' : 'Invalid or expired session');
    ctx.state.principal = principal;
    await next();
  };
}
