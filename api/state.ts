import type { ParameterizedContext } from 'koa';
import type { Principal } from '../shared/principal.js';
import type { Uploader } from '../shared/services/uploads/upload.service.js';
import type { McpPrincipal } from './oauth/access-tokens.js';

/** What middleware leaves on ctx.state for the routes after it. */
export interface AppState {
  requestId: string;
  /** what the request metrics call a request no router matched (e.g. a file on a subdomain) */
  route?: string;
  /** set by the auth middleware: who the request acts for */
  principal?: Principal;
  /** set by the upload auth middleware */
  uploader?: Uploader;
  /** set by the MCP bearer middleware: the account and the scopes its assistant holds */
  mcp?: McpPrincipal;
}

export type AppContext = ParameterizedContext<AppState>;

/** Who the auth middleware found the request acts for; only call behind it. */
export function principalOf(ctx: AppContext): Principal {
  const principal = ctx.state.principal;
  if (!principal) throw new Error('principalOf() used on a route without authentication');
  return principal;
}

export function uploaderOf(ctx: AppContext): Uploader {
  const uploader = ctx.state.uploader;
  if (!uploader) throw new Error('uploaderOf() used on a route without upload auth');
  return uploader;
}
