import { Router } from '@koa/router';
import { AppError } from '../../shared/errors.js';
import type { Connection } from '../../shared/services/assistants/connection.service.js';
import { SITE_SESSION_COOKIE } from '../../shared/services/accounts/site-session.service.js';
import { siteAccountOf } from '../middleware/auth.middleware.js';
import type { RouteDeps } from '../routes/route-deps.js';
import type { AppContext, AppState } from '../state.js';
import { FAVICON_SVG, SITE_CSS, SITE_JS } from './pages/assets.js';
import { html, type SafeHtml } from './pages/html.js';
import { pageCsp, renderPage } from './pages/render-page.js';
import { AppBundle } from './app-bundle.js';
import { staticAsset } from './static-asset.js';


/** The small server-rendered website: upload form, sign-in, registration and the account page. */
export function pagesRoutes({ services }: RouteDeps) {
  const router = new Router<AppState>();

  const bundle = new AppBundle();
  bundle.routes(router);
  const render = (ctx: AppContext, title: string, body: SafeHtml, signedIn: boolean) => renderPage(ctx, { title, body, signedIn });

  const signedIn = (ctx: AppContext) => siteAccountOf(ctx, services.sessions);

  router.get('/', async (ctx) => {
    // The visitor cookie is what lets this page's uploads go without a key (same-origin rule).
    if (!services.siteSessions.verify(ctx.cookies.get(SITE_SESSION_COOKIE))) {
      ctx.cookies.set(SITE_SESSION_COOKIE, services.siteSessions.issue(), { httpOnly: true, sameSite: 'strict', secure: ctx.secure });
    }
    const account = await signedIn(ctx);
    renderPage(ctx, {
      title: 'Upload',
      signedIn: Boolean(account),
      head: bundle.headFor('upload-page'),
      body: html`<h1>Upload files</h1>
<p>${account ? html`Signed in as <strong>${account.username}</strong>: uploads go to your library. <a href="/dashboard">Open the dashboard</a>.` : 'No account needed; sign in to keep your files together.'}</p>
<div id="uploader" data-signed-in="${account ? 'true' : 'false'}"></div>`,
    });
  });

  // The dashboard: one page for every /dashboard path; the app picks the view from the path.
  router.get('/dashboard{/*rest}', async (ctx) => {
    if (!(await signedIn(ctx))) return ctx.redirect(`/login?next=${encodeURIComponent(ctx.path)}`);
    ctx.set('Content-Security-Policy', pageCsp());
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = `<!DOCTYPE html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Dashboard · Hosted Files</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
${bundle.headFor('dashboard')}
</head>
<body><div id="app"></div></body>
</html>`}`;
  });

  router.get('/login', (ctx) => {
    const next = nextPathOf(ctx.query.next);
    render(
      ctx,
      'Sign in',
      html`<h1>Sign in</h1>
<form id="login-form" data-next="${next}">
  <input name="username" id="username" autocomplete="username" placeholder="Username" required>
  <input name="password" id="password" type="password" autocomplete="current-password" placeholder="Password" required>
  <button class="primary" type="submit">Sign in</button>
  <div class="status"></div>
</form>
<p>No account yet? <a href="/register${next === '/account' ? '' : `?next=${encodeURIComponent(next)}`}">Register</a></p>`,
      false,
    );
  });

  router.get('/register', (ctx) => {
    render(
      ctx,
      'Register',
      html`<h1>Create an account</h1>
<form id="register-form" data-next="${nextPathOf(ctx.query.next)}">
  <input name="username" id="username" autocomplete="username" placeholder="Username (3-32 letters, digits, hyphens)" required>
  <input name="email" id="email" type="email" autocomplete="email" placeholder="Email" required>
  <input name="password" id="password" type="password" autocomplete="new-password" placeholder="Password (8+ characters)" required>
  <button class="primary" type="submit">Register</button>
  <div class="status"></div>
</form>`,
      false,
    );
  });

  router.get('/account', async (ctx) => {
    const principal = await signedIn(ctx);
    if (!principal) return ctx.redirect('/login');
    const [account, { uploads }, connections] = await Promise.all([
      services.accounts.profile(principal),
      services.dashboard.get(principal, { page: 1, limit: 20, sortBy: 'timestamp', sortOrder: 'desc' }),
      services.connections.list(principal),
    ]);
    const rows = uploads.map(
      (u) => html`<tr><td><a href="${u.url}">${u.filename}</a></td><td>${u.originalName}</td><td>${u.size}</td><td>${u.timestamp}</td></tr>`,
    );
    render(
      ctx,
      'Account',
      html`<h1>${account.username}</h1>
<p>Plan: <strong>${account.plan}</strong></p>
<p>API key: <code id="api-key">${account.apiKey}</code></p>
<h2>Uploader configs</h2>
<p id="uploader-configs">Ready to use with your API key: <a href="/api/user/uploader-config?tool=sharex" download>ShareX (.sxcu)</a> · <a href="/api/user/uploader-config?tool=flameshot" download>Flameshot script</a> · <a href="/api/user/uploader-config?tool=curl" download>curl command</a></p>
<h2>Connected assistants</h2>
${connections.length ? html`<ul id="connections">${connections.map(connectionItem)}</ul>` : html`<p id="no-connections">No assistant is connected.</p>`}
<h2>Recent uploads</h2>
${uploads.length ? html`<table><thead><tr><th>File</th><th>Original name</th><th>Bytes</th><th>Uploaded</th></tr></thead><tbody>${rows}</tbody></table>` : html`<p>Nothing yet. <a href="/">Upload a file</a>.</p>`}`,
      true,
    );
  });

  // The account page's Disconnect button: a same-origin form post under the session cookie (SameSite=Lax).
  router.post('/account/connections/disconnect', async (ctx) => {
    const principal = await signedIn(ctx);
    if (!principal) return ctx.redirect('/login');
    const origin = ctx.get('origin');
    if (origin && origin !== ctx.origin) throw AppError.forbidden('Cross-site request refused');
    const { clientId } = (ctx.request.body ?? {}) as { clientId?: unknown };
    if (typeof clientId !== 'string' || !clientId) throw AppError.badRequest('clientId is required');
    await services.connections.disconnect(principal, clientId);
    ctx.status = 303;
    ctx.redirect('/account');
  });

  staticAsset(router, '/assets/site.css', 'text/css', SITE_CSS);
  staticAsset(router, '/assets/site.js', 'application/javascript', SITE_JS);
  staticAsset(router, '/assets/favicon.svg', 'image/svg+xml', FAVICON_SVG);

  return router;
}

function connectionItem(connection: Connection): SafeHtml {
  const name = connection.clientName ?? connection.clientId;
  const lastUsed = connection.lastUsedAt ? `last used ${connection.lastUsedAt}` : 'not used yet';
  return html`<li class="connection"><strong>${name}</strong> <small>${connection.clientUri ?? connection.clientId}</small><br>
<small>${connection.scopes.join(', ') || 'no access'} · connected ${connection.connectedAt} · ${lastUsed}</small>
<form method="post" action="/account/connections/disconnect"><input type="hidden" name="clientId" value="${connection.clientId}"><button type="submit">Disconnect</button></form></li>`;
}

/** Where sign-in returns to: a path on this site only (never another origin), else the account page. */
function nextPathOf(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])/.test(value) ? value : '/account';
}
