import { Router } from '@koa/router';
import type { Principal } from '../../shared/principal.js';
import { EXPIRY_OPTIONS } from '../../shared/services/expiry.js';
import { SESSION_COOKIE } from '../../shared/services/session.service.js';
import { SITE_SESSION_COOKIE } from '../../shared/services/site-session.service.js';
import type { RouteDeps } from '../routes/route-deps.js';
import type { AppContext, AppState } from '../state.js';
import { SITE_CSS, SITE_JS } from './pages/assets.js';
import { html, layout } from './pages/html.js';
import { staticAsset } from './static-asset.js';

const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: http: https:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** The small server-rendered website: upload form, sign-in, registration and the account page. */
export function pagesRoutes({ services }: RouteDeps) {
  const router = new Router<AppState>();

  const render = (ctx: AppContext, title: string, body: ReturnType<typeof html>, signedIn: boolean) => {
    ctx.set('Content-Security-Policy', PAGE_CSP);
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = layout(title, body, signedIn);
  };

  const signedIn = async (ctx: AppContext): Promise<Principal | undefined> => {
    const token = ctx.cookies.get(SESSION_COOKIE);
    return token ? services.sessions.principalOf(token) : undefined;
  };

  router.get('/', async (ctx) => {
    // The visitor cookie is what lets this page's form upload without a key (same-origin rule).
    if (!services.siteSessions.verify(ctx.cookies.get(SITE_SESSION_COOKIE))) {
      ctx.cookies.set(SITE_SESSION_COOKIE, services.siteSessions.issue(), { httpOnly: true, sameSite: 'strict', secure: ctx.secure });
    }
    const account = await signedIn(ctx);
    const options = EXPIRY_OPTIONS.map((o) => html`<option value="${o.value}">${o.label}</option>`);
    render(
      ctx,
      'Upload',
      html`<h1>Upload a file</h1>
<p>${account ? html`Signed in as <strong>${account.username}</strong>: uploads go to your library.` : 'No account needed; sign in to keep your files together.'}</p>
<form id="upload-form">
  <input type="file" name="file" id="file" required>
  <label>Expires <select name="expiry" id="expiry">${options}</select></label>
  <button class="primary" type="submit">Upload</button>
  <div class="status"></div>
</form>
<p id="result" hidden>Your file: <a id="result-url" href="#"></a></p>`,
      Boolean(account),
    );
  });

  router.get('/login', (ctx) => {
    render(
      ctx,
      'Sign in',
      html`<h1>Sign in</h1>
<form id="login-form">
  <input name="username" id="username" autocomplete="username" placeholder="Username" required>
  <input name="password" id="password" type="password" autocomplete="current-password" placeholder="Password" required>
  <button class="primary" type="submit">Sign in</button>
  <div class="status"></div>
</form>
<p>No account yet? <a href="/register">Register</a></p>`,
      false,
    );
  });

  router.get('/register', (ctx) => {
    render(
      ctx,
      'Register',
      html`<h1>Create an account</h1>
<form id="register-form">
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
    const [account, { uploads }] = await Promise.all([
      services.accounts.profile(principal),
      services.dashboard.get(principal, { page: 1, limit: 20, sortBy: 'timestamp', sortOrder: 'desc' }),
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
<h2>Recent uploads</h2>
${uploads.length ? html`<table><thead><tr><th>File</th><th>Original name</th><th>Bytes</th><th>Uploaded</th></tr></thead><tbody>${rows}</tbody></table>` : html`<p>Nothing yet. <a href="/">Upload a file</a>.</p>`}`,
      true,
    );
  });

  staticAsset(router, '/assets/site.css', 'text/css', SITE_CSS);
  staticAsset(router, '/assets/site.js', 'application/javascript', SITE_JS);

  return router;
}
