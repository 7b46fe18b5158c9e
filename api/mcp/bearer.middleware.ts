import type { Middleware } from 'koa';
import { SCOPE_NAMES, type Scope } from '../../shared/scopes.js';
import type { AccessTokenVerifier, McpPrincipal } from '../oauth/access-tokens.js';
import type { AppContext, AppState } from '../state.js';

/** Where clients find how to get a token for `/mcp` (RFC 9728), as the challenge names it. */
export function resourceMetadataUrlOf(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/.well-known/oauth-protected-resource/mcp`;
}

const quoted = (value: string) => `"${value.replace(/["\\]/g, '')}"`;

function challenge(ctx: AppContext, status: 401 | 403, error: string, description: string, scopes: readonly string[], metadataUrl: string) {
  const params = [`error=${quoted(error)}`, `error_description=${quoted(description)}`, `resource_metadata=${quoted(metadataUrl)}`, `scope=${quoted(scopes.join(' '))}`];
  ctx.set('WWW-Authenticate', `Bearer ${params.join(', ')}`);
  ctx.status = status;
  ctx.body = { success: false, error: description };
}

/**
 * The MCP endpoint's gate: an access token in the Authorization header only (never a query string
 * or cookie), checked on every request. Anything but a live token for `/mcp` is 401 with the
 * challenge that lets a client discover the authorization server.
 */
/** The access token of the Authorization header (the only place one is taken from). */
export function bearerTokenOf(ctx: AppContext): string | undefined {
  return /^Bearer +([^\s]+) *$/i.exec(ctx.get('authorization'))?.[1];
}

export function requireMcpToken(verifier: AccessTokenVerifier, baseUrl: string): Middleware<AppState> {
  const metadataUrl = resourceMetadataUrlOf(baseUrl);
  return async (ctx, next) => {
    const token = bearerTokenOf(ctx);
    const principal = token ? await verifier.verify(token) : undefined;
    if (!principal) {
      const description = token ? 'The access token is invalid, expired or revoked' : 'An access token is required';
      return challenge(ctx, 401, 'invalid_token', description, SCOPE_NAMES, metadataUrl);
    }
    ctx.state.mcp = principal;
    await next();
  };
}

/** The MCP principal behind `requireMcpToken`. */
export function mcpPrincipalOf(ctx: AppContext): McpPrincipal {
  const principal = ctx.state.mcp;
  if (!principal) throw new Error('mcpPrincipalOf() used without requireMcpToken');
  return principal;
}

/**
 * Whether the request's token holds every scope of `needed`; if not, answers 403 insufficient_scope
 * naming them all (what a client asks for when it steps up) and returns false.
 */
export function holdsScopes(ctx: AppContext, needed: readonly Scope[], baseUrl: string): boolean {
  const held = new Set(mcpPrincipalOf(ctx).scopes);
  if (needed.every((scope) => held.has(scope))) return true;
  challenge(ctx, 403, 'insufficient_scope', `This needs the scopes: ${needed.join(' ')}`, needed, resourceMetadataUrlOf(baseUrl));
  return false;
}
