import { Router } from '@koa/router';
import type { Config } from '../../shared/config.js';
import { MCP_SCOPE_NAMES, type McpScope, mcpResourceOf } from '../../shared/services/oauth/oauth-scopes.js';
import type { AccessTokenVerifier } from '../oauth/access-tokens.js';
import type { AppState } from '../state.js';
import { holdsScopes, mcpPrincipalOf, requireMcpToken } from './bearer.middleware.js';

/** The scopes each of the spec's MCP tools needs. */
export const TOOL_SCOPES: Record<string, McpScope[]> = {
  get_account: ['account:read'],
  list_files: ['files:read'],
  get_file: ['files:read'],
  view_file: ['files:read'],
  request_file_from_user: ['files:write'],
  check_file_handoff: ['files:read'],
  upload_file: ['files:write'],
  upload_from_url: ['files:write'],
  rename_files: ['files:write'],
  move_files: ['files:write'],
  delete_files: ['files:delete'],
  list_folders: ['folders:read'],
  create_folder: ['folders:write'],
  delete_folder: ['folders:write'],
  share_folder: ['folders:write'],
};

interface JsonRpcRequest {
  id?: string | number | null;
  method?: string;
  params?: { name?: string };
}

/**
 * `/mcp` behind its bearer gate, and the protected-resource metadata (RFC 9728) clients discover it
 * by. Until the MCP server lands the endpoint checks the token and a called tool's scopes, then
 * answers that the method is not there yet.
 */
export function mcpRoutes(verifier: AccessTokenVerifier, { baseUrl }: Pick<Config, 'baseUrl'>) {
  const router = new Router<AppState>();
  const metadata = {
    resource: mcpResourceOf(baseUrl),
    authorization_servers: [baseUrl],
    scopes_supported: MCP_SCOPE_NAMES,
    bearer_methods_supported: ['header'],
    resource_name: 'Hosted Files',
  };
  for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
    router.get(path, (ctx) => {
      // Browser-based clients read it cross-origin.
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = metadata;
    });
  }

  router.all('/mcp', requireMcpToken(verifier, baseUrl), (ctx) => {
    const request = (ctx.request.body ?? {}) as JsonRpcRequest;
    const tool = request.method === 'tools/call' ? request.params?.name : undefined;
    const needed = tool ? TOOL_SCOPES[tool] : undefined;
    if (needed && !holdsScopes(ctx, needed, baseUrl)) return;
    const { account, scopes } = mcpPrincipalOf(ctx);
    ctx.body = {
      jsonrpc: '2.0',
      id: request.id ?? null,
      error: { code: -32601, message: 'The MCP server is not available yet', data: { username: account.username, scopes } },
    };
  });
  return router;
}
