import { bodyParser } from '@koa/bodyparser';
import { Router } from '@koa/router';
import { hostHeaderValidation, originValidation, toNodeHandler } from '@modelcontextprotocol/node';
import type { Middleware } from 'koa';
import type { Config } from '../../shared/config.js';
import { AppError } from '../../shared/errors.js';
import { MCP_SCOPE_NAMES, mcpResourceOf } from '../../shared/services/oauth/oauth-scopes.js';
import type { AccessTokenVerifier } from '../oauth/access-tokens.js';
import { LOOPBACK_HOSTS } from '../oauth/provider.js';
import type { AppState } from '../state.js';
import { bearerTokenOf, holdsScopes, mcpPrincipalOf, requireMcpToken } from './bearer.middleware.js';
import { authInfoOf, createMcpEndpoint, type McpServerDeps } from './mcp-server.js';
import { TOOL_SCOPES } from './tools/index.js';

interface JsonRpcMessage {
  method?: unknown;
  params?: { name?: unknown };
}

/**
 * `/mcp` (Streamable HTTP) behind its bearer gate, and the protected-resource metadata (RFC 9728)
 * clients discover it by. A call to a tool the token's scopes do not cover is refused with 403
 * insufficient_scope before the MCP server sees it, so clients can step up.
 */
export function mcpRoutes(verifier: AccessTokenVerifier, config: Pick<Config, 'baseUrl' | 'siteUrl' | 'mcpUploadMaxBytes'>, deps: McpServerDeps) {
  const { baseUrl } = config;
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

  // upload_file's base64 is a third larger than its bytes; the rest of a request is small.
  const maxBody = Math.ceil((config.mcpUploadMaxBytes * 4) / 3) + 256 * 1024;
  const endpoint = createMcpEndpoint(deps, maxBody);
  const handle = toNodeHandler(endpoint, { maxRequestBodySize: maxBody });
  // DNS-rebinding protection: only our own hosts, and browsers only from our own pages or loopback.
  const ownHosts = [...new Set([new URL(baseUrl).hostname, new URL(config.siteUrl).hostname, ...LOOPBACK_HOSTS])];
  const validHost = hostHeaderValidation(ownHosts);
  const validOrigin = originValidation(ownHosts);
  const hostAndOrigin: Middleware<AppState> = async (ctx, next) => {
    if (!validHost(ctx.req, ctx.res) || !validOrigin(ctx.req, ctx.res)) {
      ctx.respond = false;
      return;
    }
    await next();
  };
  const body = bodyParser({
    enableTypes: ['json'],
    jsonLimit: maxBody,
    onError: (err) => {
      throw (err as { status?: number }).status === 413 ? AppError.tooLarge(`An MCP request is at most ${maxBody} bytes`) : AppError.badRequest('Malformed JSON body');
    },
  });

  router.all('/mcp', hostAndOrigin, requireMcpToken(verifier, baseUrl), body, async (ctx) => {
    const parsed = ctx.is('application/json') ? (ctx.request.body as JsonRpcMessage | JsonRpcMessage[] | undefined) : undefined;
    const needed = [parsed ?? []]
      .flat()
      .map((message) => (message?.method === 'tools/call' ? TOOL_SCOPES[String(message.params?.name)] : undefined))
      .filter((scope) => scope !== undefined);
    if (needed.length && !holdsScopes(ctx, [...new Set(needed)], baseUrl)) return;
    const token = bearerTokenOf(ctx)!;
    ctx.respond = false;
    await handle(Object.assign(ctx.req, { auth: authInfoOf(token, mcpPrincipalOf(ctx)) }), ctx.res, parsed);
  });
  return { router, close: () => endpoint.close() };
}
