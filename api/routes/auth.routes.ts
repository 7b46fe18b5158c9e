import { Router } from '@koa/router';
import { z } from 'zod';
import { passwordSchema, usernameSchema } from '../../shared/services/accounts/account.service.js';
import { SESSION_COOKIE } from '../../shared/services/accounts/session.service.js';
import { validate } from '../../shared/validation.js';
import { bearerOf, needs, requireAccount } from '../middleware/auth.middleware.js';
import { type AppContext, type AppState, principalOf } from '../state.js';
import type { RouteDeps } from './route-deps.js';

export const loginSchema = z.object({
  username: z.string({ error: 'username is required' }).trim().min(1, 'username is required').max(64),
  password: z.string({ error: 'password is required' }).min(1, 'password is required').max(256),
  // Whatever it is, the captcha service judges it (a missing one is its 400 too).
  captchaToken: z.unknown(),
});
export const registerSchema = z.object({
  username: usernameSchema,
  email: z.email({ error: 'email must be an email address' }),
  password: passwordSchema,
  captchaToken: z.unknown(),
});

/** The website keeps the session in an HttpOnly cookie; API clients use the token as a Bearer. */
function setSessionCookie(ctx: AppContext, token: string, expires: Date) {
  ctx.cookies.set(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure: ctx.secure, expires, overwrite: true });
}

function signInContext(ctx: AppContext) {
  return { ip: ctx.ip, userAgent: ctx.get('user-agent') || null };
}

export function authRoutes({ services }: RouteDeps) {
  const router = new Router<AppState>({ prefix: '/auth' });

  router.get('/me', requireAccount(services), needs('account:read'), async (ctx) => {
    // A token never learns the primary key.
    ctx.body = { success: true, data: { user: await services.accounts.profile(principalOf(ctx), { withApiKey: !ctx.state.scopes }) } };
  });

  router.get('/captcha', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await services.captcha.challenge();
  });

  router.post('/register', async (ctx) => {
    const { user, sessionToken, expiresAt } = await services.auth.register(validate(registerSchema, ctx.request.body), signInContext(ctx));
    setSessionCookie(ctx, sessionToken, expiresAt);
    ctx.body = { success: true, data: { user, sessionToken } };
  });

  router.post('/login', async (ctx) => {
    const { user, sessionToken, expiresAt } = await services.auth.login(validate(loginSchema, ctx.request.body), signInContext(ctx));
    setSessionCookie(ctx, sessionToken, expiresAt);
    ctx.body = { success: true, data: { user, sessionToken } };
  });

  router.post('/logout', async (ctx) => {
    const token = bearerOf(ctx) ?? ctx.cookies.get(SESSION_COOKIE);
    if (token) await services.auth.logout(token);
    ctx.cookies.set(SESSION_COOKIE, null);
    ctx.body = { success: true, message: 'Signed out' };
  });

  return router;
}
