import type { ParameterizedContext } from 'koa';
import { AppError } from '../shared/errors.js';
import type { Principal } from '../shared/principal.js';
import type { Scope } from '../shared/scopes.js';
import type { Uploader } from '../shared/services/uploads/upload.service.js';
import type { McpPrincipal } from './oauth/access-tokens.js';

/** What middleware leaves on ctx.state for the routes after it. */
export interface AppState {
  requestId: string;
  /** what the request metrics call a request no router matched (e.g. a file on a subdomain) */
  route?: string;
  /** set by the auth middleware: who the request acts for */
  principal?: Principal;
  /** set by the auth middleware for a personal access token: what it may do (absent: anything) */
  scopes?: readonly Scope[];
  /** set by `needs(scope)` once the route's scope is checked */
  scopeChecked?: boolean;
  /** set by the upload auth middleware */
  uploader?: Uploader;
  /** set by the MCP bearer middleware: the account and the scopes its assistant holds */
  mcp?: McpPrincipal;
}

export type AppContext = ParameterizedContext<AppState>;

/**
 * Who the auth middleware found the request acts for; only call behind it. A personal access token
 * passes only routes that declared the scope they need: the rest (keys, tokens, webhooks, settings…)
 * are the primary key's and the session's alone.
 */
export function principalOf(ctx: AppContext): Principal {
  const principal = ctx.state.principal;
  if (!principal) throw new Error('principalOf() used on a route without authentication');
  if (ctx.state.scopes && !ctx.state.scopeChecked) throw AppError.forbidden('This route needs the primary API key or a signed-in session, not an access token');
  return principal;
}

export function uploaderOf(ctx: AppContext): Uploader {
  const uploader = ctx.state.uploader;
  if (!uploader) throw new Error('uploaderOf() used on a route without upload auth');
  return uploader;
}
