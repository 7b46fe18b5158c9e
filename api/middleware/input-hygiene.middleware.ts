import type { Middleware } from 'koa';
import { isStorablePercentEncoded, unstorableText } from '../../shared/text-hygiene.js';
import { answerOAuthRefusal, isProviderPath } from '../oauth/oauth-server.js';
import type { AppState } from '../state.js';

/**
 * First after the error handler: a path or query string whose escapes decode to text that cannot be
 * stored (`%00`, `%FF`, `%ED%A0%80`) is refused before any route, file lookup or OAuth endpoint reads
 * it. Bodies are checked by their parsers (body-parser.middleware.ts, and for oidc-provider's own in
 * oauth-server.ts) by the same rule.
 */
export const refuseUnstorableUrls: Middleware<AppState> = async (ctx, next) => {
  if (isStorablePercentEncoded(ctx.url)) return next();
  if (isProviderPath(ctx.path)) return answerOAuthRefusal(ctx, unstorableText());
  throw unstorableText();
};
