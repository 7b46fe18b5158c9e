import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import type Provider from 'oidc-provider';
import type { ClientMetadata, Configuration } from 'oidc-provider';
import type { Config } from '../../shared/config.js';
import type { Logger } from '../../shared/logger.js';
import { safeFetch } from '../../shared/net/safe-fetch.js';
import { onEndOfLifeNode } from '../../shared/node-runtime.js';
import type { AuthorizationStore } from '../../shared/services/assistants/authorization-store.js';
import { SCOPE_NAMES } from '../../shared/scopes.js';
import { mcpResourceOf } from '../../shared/services/assistants/mcp-resource.js';
import { h, type JSX } from 'preact';
import { InteractionErrorPage } from '../site/views/consent-page.js';
import type { PageFrame } from '../site/views/page.js';
import type { AppContext } from '../state.js';

/** Where the authorization server's own endpoints live (its metadata stays under /.well-known). */
export const OAUTH_PREFIX = '/oauth';
export const INTERACTION_PATH = `${OAUTH_PREFIX}/interaction`;

const CLOCK_TOLERANCE_SECONDS = 15;
const HOUR = 3600;
const DAY = 24 * HOUR;
/** Access tokens are short-lived: a lost one is worth an hour at most. */
export const ACCESS_TOKEN_TTL_SECONDS = HOUR;
/** Host names that stay on the user's device (RFC 8252 loopback redirects, local MCP clients). */
export const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

export interface OAuthProviderDeps {
  config: Pick<Config, 'baseUrl' | 'urlFetch'>;
  store: AuthorizationStore;
  logger: Logger;
  /** SitePages (named by shape: it depends on this module's paths), so the provider's error pages are the site's */
  pages: { render(ctx: AppContext, page: { title: string; view: (frame: PageFrame) => JSX.Element }): Promise<void> };
}

/**
 * Loads oidc-provider on first use, its import-time notices becoming log lines: stderr stays for what
 * the service itself has to say. Its warning on Node 20 ("Unsupported runtime") is dropped: the
 * process says that once itself, at start (shared/node-runtime.ts).
 */
async function importOidcProvider(logger: Logger): Promise<typeof import('oidc-provider')> {
  const { warn, info } = console;
  console.warn = (message: unknown) => {
    if (!(onEndOfLifeNode && String(message).includes('Unsupported runtime'))) logger.warn(String(message));
  };
  console.info = (message: unknown) => logger.info(String(message));
  try {
    return await import('oidc-provider');
  } finally {
    Object.assign(console, { warn, info });
  }
}

/**
 * The authorization server (oidc-provider, certified): issuer BASE_URL, state in PostgreSQL, one
 * sealed ES256 key, public clients by metadata document or registration, PKCE S256 always, opaque
 * tokens for `{BASE_URL}/mcp` only, rotating refresh tokens.
 */
export async function createOAuthProvider({ config, store, logger, pages }: OAuthProviderDeps): Promise<Provider> {
  const { default: Provider, errors } = await importOidcProvider(logger);
  const resource = mcpResourceOf(config.baseUrl);
  const signingKey = await store.signingKey();
  const configuration: Configuration = {
    adapter: store.adapter(CLOCK_TOLERANCE_SECONDS, (description) => new errors.InvalidRequest(description)),
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    jwks: { keys: [signingKey] },
    cookies: { keys: store.cookieKeys() },
    async findAccount(_ctx, id) {
      // A banned (or deleted) account cannot sign in here, nor refresh a token it was given.
      const account = await store.activeAccount(id);
      return account && { accountId: account.id, claims: () => ({ sub: account.id }) };
    },
    scopes: ['openid', 'offline_access', ...SCOPE_NAMES],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    extraClientMetadata: { properties: ['application_type'], validator: nativeWhenRedirectsStayOnDevice },
    pkce: { required: () => true },
    routes: {
      authorization: `${OAUTH_PREFIX}/authorize`,
      token: `${OAUTH_PREFIX}/token`,
      registration: `${OAUTH_PREFIX}/register`,
      revocation: `${OAUTH_PREFIX}/revoke`,
      jwks: `${OAUTH_PREFIX}/jwks`,
      userinfo: `${OAUTH_PREFIX}/userinfo`,
      end_session: `${OAUTH_PREFIX}/logout`,
      introspection: `${OAUTH_PREFIX}/introspect`,
      pushed_authorization_request: `${OAUTH_PREFIX}/par`,
    },
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    // Only the grant the consent step just made counts: every authorization asks the person signed in
    // on the site, so signing out there (or another person signing in) is never skipped.
    async loadExistingGrant(ctx) {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(String(grantId)) : undefined;
    },
    // MCP clients do not ask for offline_access; any client allowed the grant type gets one.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    // Tokens live by their own TTL, not by the browser session that approved them.
    expiresWithSession: async () => false,
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: 60,
      IdToken: HOUR,
      Interaction: HOUR,
      Session: 14 * DAY,
      RefreshToken: 30 * DAY,
      Grant: 365 * DAY,
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      rpInitiatedLogout: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo(_ctx, indicator) {
          if (indicator !== resource) throw new errors.InvalidTarget(`the only resource is ${resource}`);
          return { scope: SCOPE_NAMES.join(' '), audience: resource, accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS, accessTokenFormat: 'opaque' };
        },
      },
      // Experimental in oidc-provider (pinned with ~): https client ids resolved from their document.
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02', cacheDuration: { min: 300, max: DAY } },
    } as Configuration['features'],
    fetch: metadataDocumentFetch(config.urlFetch.allowedOrigins),
    async renderError(ctx, out) {
      const message = out.error_description ?? out.error;
      // The provider's context is a Koa context as the site's is; it keeps the status it set.
      await pages.render(ctx as unknown as AppContext, { title: 'Sign-in error', view: (frame) => h(InteractionErrorPage, { frame, message }) });
    },
  };
  const provider = new Provider(config.baseUrl, configuration);
  provider.on('server_error', (_ctx, err) => logger.error({ err }, 'OAuth server error'));
  return provider;
}

/**
 * A client whose every redirect stays on the user's device (loopback http, or an app's own scheme)
 * is a native client (RFC 8252), whatever it declared: its loopback callback may then use any port.
 * Several MCP clients omit `application_type` and pick a new port each run.
 */
function nativeWhenRedirectsStayOnDevice(_ctx: unknown, key: string, _value: unknown, metadata: ClientMetadata) {
  if (key !== 'application_type') return;
  const uris = metadata.redirect_uris ?? [];
  const onDevice = (uri: string) => {
    const parsed = URL.canParse(uri) ? new URL(uri) : undefined;
    if (!parsed) return false;
    if (parsed.protocol === 'http:') return LOOPBACK_HOSTS.has(parsed.hostname);
    return parsed.protocol !== 'https:';
  };
  if (uris.length > 0 && uris.every(onDevice)) metadata.application_type = 'native';
}

/**
 * How the provider fetches client metadata documents: through the service's SSRF-safe fetcher (public
 * addresses only, pinned), no redirects, within the provider's 2.5 s and 5 KiB limits.
 */
function metadataDocumentFetch(allowedOrigins: readonly string[]): NonNullable<Configuration['fetch']> {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const response = await safeFetch(url, {
      timeoutMs: 5000,
      maxRedirects: 0,
      allowedOrigins,
      ...(init?.signal ? { signal: init.signal } : {}),
      headers: { accept: 'application/json' },
    });
    return new Response(Readable.toWeb(response.body) as unknown as ReadableStream as never, { status: response.status, headers: response.headers });
  };
}
