import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import { ApiClient } from './api-client.js';
import { solveCaptcha } from './captcha.js';
import type { TestEnv } from './test-env.js';

export const ALL_SCOPES = ['account:read', 'files:read', 'files:write', 'files:delete', 'folders:read', 'folders:write'];
/** The spec's fifteen MCP tools. */
export const SPEC_TOOL_NAMES = [
  'get_account', 'list_files', 'get_file', 'view_file', 'request_file_from_user', 'check_file_handoff', 'upload_file',
  'upload_from_url', 'rename_files', 'move_files', 'delete_files', 'list_folders', 'create_folder', 'delete_folder', 'share_folder',
];
// The test server's issuer is plain http on loopback.
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

/**
 * A browser stand-in that walks the real sign-in and consent pages over HTTP: it keeps cookies,
 * follows no redirect by itself, and submits the consent form as the page renders it.
 */
export class PageSession {
  private readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(new URL(url, this.baseUrl), { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** Signs in as the sign-in page does (captcha solved for real); the session cookie is kept. */
  async signIn(username: string, password = 'correct-horse-battery'): Promise<void> {
    const api = new ApiClient(this.baseUrl);
    const res = await this.fetch('/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password, captchaToken: await solveCaptcha(api) }),
    });
    if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  }

  /**
   * Follows an authorization request through the consent page; unticks `untick`, answers `decision`.
   * Resolves with the URL the browser would be sent to at the client (its callback, or an error).
   */
  async authorize(authorizationUrl: string, options: { untick?: string[]; decision?: 'allow' | 'deny' } = {}) {
    let res = await this.fetch(authorizationUrl);
    let consentPage = '';
    for (let hops = 0; hops < 10; hops++) {
      if (res.status === 200) {
        consentPage = await res.text();
        const action = /<form[^>]* action="([^"]+)"[^>]* id="consent-form"/.exec(consentPage)?.[1];
        if (!action) throw new Error(`no consent form:\n${consentPage}`);
        const form = new URLSearchParams({ decision: options.decision ?? 'allow' });
        for (const [, scope] of consentPage.matchAll(/name="scope" value="([^"]+)" checked/g)) {
          if (!options.untick?.includes(scope!)) form.append('scope', scope!);
        }
        res = await this.fetch(action, { method: 'POST', body: form, headers: { origin: new URL(this.baseUrl).origin } });
        continue;
      }
      const location = res.headers.get('location');
      if (res.status < 300 || res.status > 399 || !location) throw new Error(`unexpected ${res.status}: ${await res.text()}`);
      const next = new URL(location, res.url);
      if (next.origin !== new URL(this.baseUrl).origin) return { callback: next, consentPage };
      res = await this.fetch(next.href);
    }
    throw new Error('too many redirects');
  }
}

/** A public client as oauth4webapi drives it: PKCE, resource, and the code exchange. */
export interface TestClient {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  redirectUri: string;
}

/** Reads the authorization server from the 401 of `/mcp` the way an MCP client does (RFC 9728, RFC 8414). */
export async function discoverFromChallenge(mcpUrl: string): Promise<{ as: oauth.AuthorizationServer; resource: oauth.ResourceServer }> {
  const unauthorized = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const challenge = unauthorized.headers.get('www-authenticate') ?? '';
  const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
  if (unauthorized.status !== 401 || !metadataUrl) throw new Error(`no challenge: ${unauthorized.status} ${challenge}`);
  const resourceUrl = new URL(mcpUrl);
  const resource = await oauth.processResourceDiscoveryResponse(resourceUrl, await oauth.resourceDiscoveryRequest(resourceUrl, insecure));
  const issuer = new URL(resource.authorization_servers![0]!);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  return { as, resource };
}

export async function registerClient(as: oauth.AuthorizationServer, redirectUri: string, name = 'Test Assistant'): Promise<TestClient> {
  const response = await oauth.dynamicClientRegistrationRequest(
    as,
    { redirect_uris: [redirectUri], client_name: name, token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] },
    insecure,
  );
  const client = (await oauth.processDynamicClientRegistrationResponse(response)) as oauth.Client;
  return { as, client, redirectUri };
}

/** An authorization request with PKCE S256 for `scopes`; `state` and `verifier` for the callback. */
export async function authorizationRequest({ as, client, redirectUri }: TestClient, scopes: string[], extra: Record<string, string> = {}) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    ...(scopes.length ? { scope: scopes.join(' ') } : {}),
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  }).toString();
  return { url: url.href, verifier, state };
}

export async function exchangeCode(test: TestClient, callback: URL, request: { verifier: string; state: string }, resource?: string) {
  const params = oauth.validateAuthResponse(test.as, test.client, callback, request.state);
  const response = await oauth.authorizationCodeGrantRequest(test.as, test.client, oauth.None(), params, test.redirectUri, request.verifier, {
    ...insecure,
    ...(resource ? { additionalParameters: { resource } } : {}),
  });
  return oauth.processAuthorizationCodeResponse(test.as, test.client, response);
}

export async function refresh(test: TestClient, refreshToken: string) {
  const response = await oauth.refreshTokenGrantRequest(test.as, test.client, oauth.None(), refreshToken, insecure);
  return oauth.processRefreshTokenResponse(test.as, test.client, response);
}

/** A raw token-endpoint call, for refusals oauth4webapi would not even send. */
export async function tokenRequest(as: oauth.AuthorizationServer, form: Record<string, string>) {
  const res = await fetch(as.token_endpoint!, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
  return { status: res.status, body: (await res.json()) as { error?: string; access_token?: string; refresh_token?: string } };
}

/** Calls `/mcp` with a bearer token (or none): a 2025-style tools/list, or a tools/call of `tool`. */
export async function callMcp(mcpUrl: string, token: string | undefined, tool?: string) {
  const body = tool ? { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: {} } } : { jsonrpc: '2.0', id: 1, method: 'tools/list' };
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  // The MCP server answers 2025-style requests as a one-event stream; refusals as JSON.
  return { status: res.status, challenge: res.headers.get('www-authenticate') ?? '', text: await res.text() };
}

/** A loopback callback a client would listen on; it only has to exist for the browser. */
export async function startCallbackServer(): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer((_req, res) => res.end('You can close this window.'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/callback`, server, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A registered client and a browser signed in as `user` (a new account of `env` unless given). */
export async function signedInAssistant(env: TestEnv, options: { redirectUri?: string; name?: string; user?: { username: string } } = {}) {
  const base = env.container.config.baseUrl;
  const user = options.user ?? (await env.createAccount());
  const { as } = await discoverFromChallenge(`${base}/mcp`);
  const client = await registerClient(as, options.redirectUri ?? 'http://127.0.0.1:7777/callback', options.name);
  const browser = new PageSession(base);
  await browser.signIn(user.username);
  return { user, client, browser };
}

/** The whole flow through the real pages: a signed-in user, a registered client, and its tokens. */
export async function connectAssistant(
  env: TestEnv,
  options: { scopes?: string[]; untick?: string[]; name?: string; user?: { username: string } } = {},
) {
  const { user, client, browser } = await signedInAssistant(env, options);
  const request = await authorizationRequest(client, options.scopes ?? ALL_SCOPES);
  const { callback, consentPage } = await browser.authorize(request.url, { untick: options.untick ?? [] });
  const tokens = await exchangeCode(client, callback, request);
  return { user, client, browser, request, callback, consentPage, tokens };
}
