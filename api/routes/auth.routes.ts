import { Router } from '@koa/router';
import type { Container } from '../../shared/container.js';
import { SESSION_COOKIE } from '../../shared/services/session.service.js';
import { requireAccount } from '../middleware/auth.middleware.js';
import { accountOf, type AppContext, type AppState } from '../state.js';

/** The website keeps the session in an HttpOnly cookie; API clients use the token as a Bearer. */
function setSessionCookie(ctx: AppContext, token: string, expires: Date) {
  ctx.cookies.set(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure: ctx.secure, expires, overwrite: true });
}

function signInContext(ctx: AppContext) {
  return { ip: ctx.ip, userAgent: ctx.get('user-agent') || null };
}

export function authRoutes({ services }: Container) {
  const router = new Router<AppState>({ prefix: '/auth' });

  router.get('/me', requireAccount(services.accounts, services.sessions), async (ctx) => {
    ctx.body = { success: true, data: { user: await services.accounts.profile(accountOf(ctx)) } };
  });

  router.get('/captcha', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await services.captcha.challenge();
  });

  router.post('/register', async (ctx) => {
    const { user, sessionToken, expiresAt } = await services.auth.register(ctx.request.body, signInContext(ctx));
    setSessionCookie(ctx, sessionToken, expiresAt);
    ctx.body = { success: true, data: { user, sessionToken } };
  });

  router.post('/login', async (ctx) => {
    const { user, sessionToken, expiresAt } = await services.auth.login(ctx.request.body, signInContext(ctx));
    setSessionCookie(ctx, sessionToken, expiresAt);
    ctx.body = { success: true, data: { user, sessionToken } };
  });

  router.post('/logout', async (ctx) => {
    const token = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1] ?? ctx.cookies.get(SESSION_COOKIE);
    if (token) await services.auth.logout(token);
    ctx.cookies.set(SESSION_COOKIE, null);
    ctx.body = { success: true, message: 'Signed out' };
  });

  return router;
}
