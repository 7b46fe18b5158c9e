import { h, type JSX } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { siteAccountOf } from '../../middleware/auth.middleware.js';
import type { RouteDeps } from '../../routes/route-deps.js';
import type { AppContext } from '../../state.js';
import { type AppBundle, type AppEntry } from '../app-bundle.js';
import { servedAs, siteHostOf } from '../hosted-paths.js';
import type { PageFrame } from '../views/page.js';
import { THEME_COOKIE, themeOf } from '../views/theme.js';
import { isProviderPath } from '../../oauth/oauth-server.js';
import { ErrorPage, errorTitle } from '../views/error-page.js';
import { escapeHtml } from './html.js';

// Paths whose failures stay JSON (or the OAuth server's own pages), whatever the Accept header says.
const MACHINE_PATHS = /^\/(?:api|mcp|\.well-known|app|assets)(?:\/|$)/;

export interface SitePage {
  title: string;
  /** the page's content, in the frame of who asks and where */
  view: (frame: PageFrame) => JSX.Element;
  /** meta tags beyond the title (link previews, canonical) */
  head?: JSX.Element | null;
  /** the script and styles the page loads: 'site' (the public pages' own) unless said */
  entry?: AppEntry;
  status?: number;
  /** sources a form may end at besides this origin (a consent form's redirect) */
  formTargets?: readonly string[];
}

/**
 * The server-rendered pages (sign-in, the drop, album, share and consent pages, error pages): the
 * app's components rendered to HTML with the app's styles, so they look and behave as the app does,
 * and work before (or without) any script.
 */
export class SitePages {
  constructor(
    private readonly deps: Pick<RouteDeps, 'services' | 'urls' | 'config'>,
    private readonly bundle: AppBundle,
  ) {}

  async frameOf(ctx: AppContext): Promise<PageFrame> {
    const host = servedAs(await siteHostOf(this.deps.urls, this.deps.services.domainDirectory, ctx.hostname));
    const onSite = host.kind === 'service';
    return {
      account: onSite ? ((await siteAccountOf(ctx, this.deps.services.sessions)) ?? null) : null,
      path: ctx.url,
      site: onSite ? '' : new URL(this.deps.config.siteUrl).origin,
    };
  }

  /** A browser's GET of a page or a hosted file (it prefers HTML); never an API or OAuth endpoint. */
  wantsPage(ctx: AppContext): boolean {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
    if (MACHINE_PATHS.test(ctx.path) || isProviderPath(ctx.path)) return false;
    return ctx.accepts('json', 'html') === 'html';
  }

  /** The error page for a status: what happened in the service's words, and a way home. */
  async renderError(ctx: AppContext, status: number, message: string): Promise<void> {
    // The catch-all's words are for API clients; a person is told it plainly.
    const words = message === 'Route not found' ? 'There is no page at this address.' : message;
    await this.render(ctx, { title: errorTitle(status), status, view: (frame) => h(ErrorPage, { frame, status, message: words }) });
  }

  async render(ctx: AppContext, page: SitePage, frame?: PageFrame): Promise<void> {
    const seen = frame ?? (await this.frameOf(ctx));
    // On a host that serves only files, the styles come from the site (its scripts could not run there).
    const assets = this.bundle.headFor(page.entry ?? 'site', { origin: seen.site, scripts: !seen.site });
    const theme = seen.site ? null : themeOf(ctx.cookies.get(THEME_COOKIE));
    ctx.set('Content-Security-Policy', pageCsp(page.formTargets, seen.site));
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    if (page.status) ctx.status = page.status;
    ctx.body = `<!DOCTYPE html><html lang="en"${theme ? ` data-theme="${theme}"` : ''}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(page.title)} · Hosted Files</title>
<link rel="icon" href="${seen.site}/assets/favicon.svg" type="image/svg+xml">
${assets}
${page.head ? renderToString(page.head) : ''}
</head>
<body>${renderToString(page.view(seen))}</body>
</html>`;
  }
}

/**
 * The site pages' CSP. `formTargets`: sources a form may end at besides this origin — browsers apply
 * form-action to every redirect after a post, so a consent form must allow the client's callback.
 * `styleOrigin`: where the styles come from when that is not this origin.
 */
export function pageCsp(formTargets: readonly string[] = [], styleOrigin = ''): string {
  return (
    `default-src 'self'; script-src 'self'; style-src 'self'${styleOrigin ? ` ${styleOrigin}` : ''}; img-src 'self' data: blob: http: https:; connect-src 'self'; ` +
    `frame-ancestors 'none'; base-uri 'none'; form-action ${["'self'", ...formTargets].join(' ')}`
  );
}
