import { Router } from '@koa/router';
import { h } from 'preact';
import { AppError } from '../../shared/errors.js';
import { SESSION_COOKIE } from '../../shared/services/accounts/session.service.js';
import { SITE_SESSION_COOKIE } from '../../shared/services/accounts/site-session.service.js';
import { siteAccountOf } from '../middleware/auth.middleware.js';
import { refuseCrossSite } from '../middleware/cross-site.guard.js';
import type { RouteDeps } from '../routes/route-deps.js';
import type { AppState } from '../state.js';
import { RegisterPage, SignInPage } from './views/auth-pages.js';
import { HomePage } from './views/home-page.js';
import { THEME_COOKIE, themeOf } from './views/theme.js';
import type { AppBundle } from './app-bundle.js';
import { FAVICON_SVG, SITE_ICON_PNG_PATH, SITE_ICON_SVG_PATH, siteIconPng } from './pages/assets.js';
import type { SitePages } from './pages/site-pages.js';
import { staticAsset } from './static-asset.js';

/** The site's own pages: the home page's uploader, the dashboard's shell, sign-in, registration, sign-out, the theme. */
export function pagesRoutes({ services }: RouteDeps, pages: SitePages, bundle: AppBundle) {
  const router = new Router<AppState>();
  bundle.routes(router);

  router.get('/', async (ctx) => {
    // The visitor cookie is what lets this page's uploads go without a key (same-origin rule).
    if (!services.siteSessions.verify(ctx.cookies.get(SITE_SESSION_COOKIE))) {
      ctx.cookies.set(SITE_SESSION_COOKIE, services.siteSessions.issue(), { httpOnly: true, sameSite: 'strict', secure: ctx.secure });
    }
    await pages.render(ctx, { title: 'Upload', entry: 'upload-page', view: (frame) => h(HomePage, { frame }) });
  });

  // The dashboard: one page for every /dashboard path; the app picks the view from the path.
  router.get('/dashboard{/*rest}', async (ctx) => {
    const account = await siteAccountOf(ctx, services.sessions);
    if (!account) return ctx.redirect(`/login?next=${encodeURIComponent(ctx.path)}`);
    // The app renders itself into #app; the server says who is signed in, so the header needs no request.
    await pages.render(
      ctx,
      { title: 'Dashboard', entry: 'dashboard', view: () => h('div', { id: 'app', 'data-username': account.username, 'data-plan': account.plan }) },
      { account, path: ctx.url, site: '' },
    );
  });

  router.get('/login', async (ctx) => {
    const next = nextPathOf(ctx.query.next);
    await pages.render(ctx, { title: 'Sign in', view: (frame) => h(SignInPage, { frame, next }) });
  });

  router.get('/register', async (ctx) => {
    const next = nextPathOf(ctx.query.next);
    await pages.render(ctx, { title: 'Create an account', view: (frame) => h(RegisterPage, { frame, next }) });
  });

  // The old account page: everything it showed is in the dashboard's settings.
  router.get('/account', (ctx) => {
    ctx.status = 301;
    ctx.redirect('/dashboard/settings');
  });

  // The header's Sign out: a same-origin form post (works without script), back to the home page.
  router.post('/logout', async (ctx) => {
    refuseCrossSite(ctx);
    const token = ctx.cookies.get(SESSION_COOKIE);
    if (token) await services.auth.logout(token);
    ctx.cookies.set(SESSION_COOKIE, null);
    ctx.status = 303;
    ctx.redirect('/');
  });

  // The header's theme switch without script (with script it sets the same cookie in place).
  router.post('/theme', (ctx) => {
    refuseCrossSite(ctx);
    const { theme, back } = (ctx.request.body ?? {}) as { theme?: unknown; back?: unknown };
    const chosen = themeOf(typeof theme === 'string' ? theme : null);
    if (!chosen) throw AppError.badRequest('theme must be light or dark');
    ctx.cookies.set(THEME_COOKIE, chosen, { httpOnly: false, sameSite: 'lax', secure: ctx.secure, maxAge: 365 * 24 * 3600 * 1000, overwrite: true });
    ctx.status = 303;
    ctx.redirect(localPathOf(back) ?? '/');
  });

  staticAsset(router, SITE_ICON_SVG_PATH, 'image/svg+xml', FAVICON_SVG);
  staticAsset(router, SITE_ICON_PNG_PATH, 'image/png', siteIconPng);

  return router;
}

/** A path on this site only (never another origin). */
function localPathOf(value: unknown): string | undefined {
  return typeof value === 'string' && /^\/(?![/\\])/.test(value) ? value : undefined;
}

/** Where sign-in returns to: a path on this site, else the dashboard. */
function nextPathOf(value: unknown): string {
  return localPathOf(value) ?? '/dashboard';
}
