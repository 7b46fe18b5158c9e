import { Router } from '@koa/router';
import { hostHeaderValidation, originValidation, toNodeHandler } from '@modelcontextprotocol/node';
import type { Middleware } from 'koa';
import type { Config } from '../../shared/config.js';
import { AppError } from '../../shared/errors.js';
import { SCOPE_NAMES } from '../../shared/scopes.js';
import { mcpResourceOf } from '../../shared/services/assistants/mcp-resource.js';
import { parseJson, readBody } from '../middleware/body-parser.middleware.js';
import type { AccessTokenVerifier } from '../oauth/access-tokens.js';
import { LOOPBACK_HOSTS } from '../oauth/provider.js';
import type { AppContext, AppState } from '../state.js';
import { bearerTokenOf, holdsScopes, mcpPrincipalOf, requireMcpToken } from './bearer.middleware.js';
import { authInfoOf, createMcpEndpoint, type McpServerDeps } from './mcp-server.js';
import { TOOL_SCOPES } from './tools/index.js';

interface JsonRpcMessage {
  method?: unknown;
  params?: { name?: unknown };
}

type Messages = JsonRpcMessage | JsonRpcMessage[];
const JSON_RPC_KINDS: Record<number, [number, string]> = { 413: [-32000, 'Payload Too Large'], 415: [-32000, 'Unsupported Media Type'] };

/**
 * The JSON-RPC body, read by the rules every JSON body follows; false when refused, answered as the
 * SDK answers its own refusals (a JSON-RPC error, id null): a parse error (-32700) for malformed or
 * too deep JSON, an invalid request (-32600) for text that cannot be stored.
 */
async function messagesOf(ctx: AppContext, maxBody: number): Promise<Messages | undefined | false> {
  if (ctx.method !== 'POST' || !ctx.is('json')) return undefined;
  try {
    return parseJson(await readBody(ctx, maxBody)) as Messages;
  } catch (err) {
    if (!(err instanceof AppError) || !err.expose) throw err;
    const [code, kind] = JSON_RPC_KINDS[err.status] ?? (err.code === 'unstorable_text' ? [-32600, 'Invalid Request'] : [-32700, 'Parse error']);
    ctx.status = err.status;
    ctx.body = { jsonrpc: '2.0', error: { code, message: `${kind}: ${err.message}` }, id: null };
    return false;
  }
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
    scopes_supported: SCOPE_NAMES,
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
  const endpoint = createMcpEndpoint(deps, { maxRequestBodySize: maxBody, baseUrl });
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
  router.all('/mcp', hostAndOrigin, requireMcpToken(verifier, baseUrl), async (ctx) => {
    const parsed = await messagesOf(ctx, maxBody);
    if (parsed === false) return;
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
