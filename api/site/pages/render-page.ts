import type { AppContext } from '../../state.js';
import { type SafeHtml, layout } from './html.js';

/**
 * The site pages' CSP. `formTargets`: sources a form may end at besides this origin — browsers apply
 * form-action to every redirect after a post, so a consent form must allow the client's callback.
 */
export function pageCsp(formTargets: readonly string[] = []): string {
  return (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: http: https:; connect-src 'self'; " +
    `frame-ancestors 'none'; base-uri 'none'; form-action ${["'self'", ...formTargets].join(' ')}`
  );
}

/** Answers with a site page: the layout around `body`, never cached, never framed. */
export function renderPage(ctx: AppContext, page: { title: string; body: SafeHtml; signedIn?: boolean; formTargets?: readonly string[]; head?: SafeHtml }) {
  ctx.set('Content-Security-Policy', pageCsp(page.formTargets));
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = layout(page.title, page.body, page.signedIn ?? false, page.head);
}
