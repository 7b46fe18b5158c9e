import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { Middleware } from 'koa';
import type Provider from 'oidc-provider';
import { AppError } from '../../shared/errors.js';
import type { RateLimits } from '../../shared/rate-limits.js';
import { isStorablePercentEncoded, unstorableText } from '../../shared/text-hygiene.js';
import { parseJson, readBody } from '../middleware/body-parser.middleware.js';
import type { AppContext, AppState } from '../state.js';
import { INTERACTION_PATH, OAUTH_PREFIX } from './provider.js';

const DISCOVERY = '/.well-known/openid-configuration';
// RFC 8414 metadata for an issuer without a path: the same document the OpenID discovery serves.
const AUTHORIZATION_SERVER_METADATA = '/.well-known/oauth-authorization-server';
const REGISTRATION = `${OAUTH_PREFIX}/register`;
const AUTHORIZATION = `${OAUTH_PREFIX}/authorize`;
// oidc-provider's own limit on the bodies it reads.
const PROVIDER_BODY_LIMIT = 56 * 1024;

export function isProviderPath(path: string): boolean {
  if (path === DISCOVERY || path === AUTHORIZATION_SERVER_METADATA) return true;
  return path.startsWith(`${OAUTH_PREFIX}/`) && !path.startsWith(`${INTERACTION_PATH}/`);
}

/** A request refused before the provider saw it, in OAuth's error shape (RFC 6749 §5.2). */
export function answerOAuthRefusal(ctx: AppContext, refusal: AppError): void {
  ctx.status = refusal.status;
  ctx.body = { error: 'invalid_request', error_description: refusal.message };
}

/**
 * oidc-provider reads its own bodies, so it is handed a copy of the request whose body was read and
 * checked here first: a form or JSON body holding text that cannot be stored never reaches it.
 */
async function checkedRequest(ctx: AppContext): Promise<IncomingMessage> {
  if (ctx.method !== 'POST' || !ctx.is('urlencoded', 'json')) return ctx.req;
  const body = await readBody(ctx, PROVIDER_BODY_LIMIT);
  if (ctx.is('json')) parseJson(body);
  else if (!isStorablePercentEncoded(body)) throw unstorableText();
  const { req } = ctx;
  const replay = Readable.from([body], { objectMode: false });
  const { headers, rawHeaders, method, url, httpVersion, httpVersionMajor, httpVersionMinor, socket } = req;
  return Object.assign(replay, { headers, rawHeaders, method, url, httpVersion, httpVersionMajor, httpVersionMinor, socket, connection: socket }) as unknown as IncomingMessage;
}

/**
 * An authorization request that names no scope asks for the default (RFC 6749 §3.3): every MCP
 * scope, each of which the user may still untick. (oidc-provider itself never grants an unasked scope.)
 */
function withDefaultScope(querystring: string, defaultScope: string): string | undefined {
  const params = new URLSearchParams(querystring);
  if (params.get('scope')?.trim()) return undefined;
  params.set('scope', defaultScope);
  return params.toString();
}

/**
 * Hands the authorization server's endpoints to oidc-provider's own app (it answers OAuth errors in
 * OAuth's shape). Open registration is limited per IP first.
 */
export function oauthServer(
  provider: Provider,
  { issuer, defaultScope }: { issuer: string; defaultScope: string },
  rateLimits: Pick<RateLimits, 'clientRegistrationsByIp'>,
): Middleware<AppState> {
  const callback = provider.callback();
  // The provider builds its endpoint URLs from the request; it is told the issuer's scheme and host
  // (it trusts these headers, and only these come from us), so metadata always names BASE_URL.
  provider.proxy = true;
  const { host, protocol } = new URL(issuer);
  return async (ctx, next) => {
    if (!isProviderPath(ctx.path)) return next();
    if (ctx.method === 'POST' && ctx.path === REGISTRATION) await rateLimits.clientRegistrationsByIp.consume(ctx.ip);
    if (ctx.path === AUTHORIZATION_SERVER_METADATA) ctx.req.url = `${DISCOVERY}${ctx.search}`;
    if (ctx.path === AUTHORIZATION && ctx.method === 'GET') {
      const query = withDefaultScope(ctx.querystring, defaultScope);
      if (query) ctx.req.url = `${AUTHORIZATION}?${query}`;
    }
    ctx.req.headers['x-forwarded-host'] = host;
    ctx.req.headers['x-forwarded-proto'] = protocol.slice(0, -1);
    ctx.state.route = `${OAUTH_PREFIX}/*`;
    let req: IncomingMessage;
    try {
      req = await checkedRequest(ctx);
    } catch (err) {
      if (err instanceof AppError && err.expose) return answerOAuthRefusal(ctx, err);
      throw err;
    }
    ctx.respond = false;
    await callback(req, ctx.res);
  };
}
