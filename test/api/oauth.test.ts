import { expect } from 'chai';
import { sql } from 'drizzle-orm';
import * as oauth from 'oauth4webapi';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import {
  ALL_SCOPES,
  authorizationRequest,
  callMcp,
  connectAssistant,
  discoverFromChallenge,
  exchangeCode,
  PageSession,
  refresh,
  registerClient,
  signedInAssistant,
  type TestClient,
  tokenRequest,
} from '../helpers/oauth.js';

describe('OAuth 2.1 for assistants', () => {
  let env: TestEnv;
  let base: string;
  let mcpUrl: string;
  before(async () => {
    env = await createTestEnv({ env: { CAPTCHA_MAX_NUMBER: '2000' } });
    base = env.container.config.baseUrl;
    mcpUrl = `${base}/mcp`;
  });
  after(() => env.close());

  const signedInClient = (options: Parameters<typeof signedInAssistant>[1] = {}) => signedInAssistant(env, options);
  const connect = (options: Parameters<typeof connectAssistant>[1] = {}) => connectAssistant(env, options);

  describe('discovery', () => {
    it('publishes the authorization server metadata at both well-known paths', async () => {
      for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
        const res = await env.api.get(path);
        expect(res.status, path).to.equal(200);
        expect(res.body.issuer).to.equal(base);
        expect(res.body.code_challenge_methods_supported).to.deep.equal(['S256']);
        expect(res.body.client_id_metadata_document_supported).to.equal(true);
        expect(res.body.authorization_response_iss_parameter_supported).to.equal(true);
        expect(res.body.authorization_endpoint).to.equal(`${base}/oauth/authorize`);
        expect(res.body.token_endpoint).to.equal(`${base}/oauth/token`);
        expect(res.body.registration_endpoint).to.equal(`${base}/oauth/register`);
        expect(res.body.scopes_supported).to.include.members(ALL_SCOPES);
      }
    });

    it('publishes the protected-resource metadata for /mcp (RFC 9728) at both paths', async () => {
      for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
        const res = await env.api.get(path);
        expect(res.status, path).to.equal(200);
        expect(res.body).to.deep.include({
          resource: mcpUrl,
          authorization_servers: [base],
          scopes_supported: ALL_SCOPES,
          bearer_methods_supported: ['header'],
        });
      }
    });

    it('answers /mcp without a token with 401 and a challenge that leads to the metadata', async () => {
      const res = await callMcp(mcpUrl, undefined);
      expect(res.status).to.equal(401);
      expect(res.challenge).to.match(/^Bearer /);
      expect(res.challenge).to.include('error="invalid_token"');
      expect(res.challenge).to.include(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
      expect(res.challenge).to.include(`scope="${ALL_SCOPES.join(' ')}"`);
    });
  });

  describe('the whole flow (dynamic registration)', () => {
    it('gives a token with exactly the scopes the user left ticked, and refresh tokens rotate', async () => {
      const { tokens, consentPage, client } = await connect({ untick: ['files:delete'] });
      expect(consentPage).to.include('Test Assistant');
      expect(consentPage).to.include('127.0.0.1:7777');
      expect(consentPage).to.match(/localhost/);
      expect(tokens.token_type.toLowerCase()).to.equal('bearer');
      expect(tokens.scope!.split(' ')).to.have.members(ALL_SCOPES.filter((s) => s !== 'files:delete'));
      expect(tokens.expires_in).to.be.within(3000, 3600);
      expect(tokens.refresh_token).to.be.a('string');

      const ok = await callMcp(mcpUrl, tokens.access_token);
      expect(ok.status).to.equal(200);
      const allowed = await callMcp(mcpUrl, tokens.access_token, 'list_files');
      expect(allowed.status).to.equal(200);
      const refused = await callMcp(mcpUrl, tokens.access_token, 'delete_files');
      expect(refused.status).to.equal(403);
      expect(refused.challenge).to.include('error="insufficient_scope"');
      expect(refused.challenge).to.include('scope="files:delete"');
      expect(refused.challenge).to.include('resource_metadata=');

      const rotated = await refresh(client, tokens.refresh_token!);
      expect(rotated.refresh_token).to.be.a('string').and.not.equal(tokens.refresh_token);
      expect((await callMcp(mcpUrl, rotated.access_token)).status).to.equal(200);
      // The old refresh token is spent: using it again is refused and revokes the whole grant.
      const replay = await tokenRequest(client.as, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: client.client.client_id });
      expect(replay.status).to.equal(400);
      expect(replay.body.error).to.equal('invalid_grant');
      expect((await callMcp(mcpUrl, rotated.access_token)).status).to.equal(401);
      const afterReplay = await tokenRequest(client.as, { grant_type: 'refresh_token', refresh_token: rotated.refresh_token!, client_id: client.client.client_id });
      expect(afterReplay.body.error).to.equal('invalid_grant');
    });

    it('sends a user who is not signed in to the sign-in page, which returns to the consent step', async () => {
      const { as } = await discoverFromChallenge(mcpUrl);
      const client = await registerClient(as, 'http://127.0.0.1:7777/callback');
      const request = await authorizationRequest(client, ['files:read']);
      const browser = new PageSession(base);
      const start = await browser.fetch(request.url);
      expect(start.status).to.equal(303);
      const interaction = new URL(start.headers.get('location')!, base);
      expect(interaction.pathname).to.match(/^\/oauth\/interaction\//);
      const toLogin = await browser.fetch(interaction.href);
      expect(toLogin.status).to.equal(302);
      const login = new URL(toLogin.headers.get('location')!, base);
      expect(login.pathname).to.equal('/login');
      expect(login.searchParams.get('next')).to.equal(interaction.pathname);
      const page = await (await browser.fetch(login.href)).text();
      expect(page).to.include(`data-next="${interaction.pathname}"`);
    });

    it('returns access_denied to the client when the user denies', async () => {
      const { client, browser } = await signedInClient();
      const request = await authorizationRequest(client, ['files:read']);
      const { callback } = await browser.authorize(request.url, { decision: 'deny' });
      expect(callback.searchParams.get('error')).to.equal('access_denied');
      expect(callback.searchParams.get('state')).to.equal(request.state);
      expect(callback.searchParams.get('iss')).to.equal(base);
    });

    it('lets a native client come back on any loopback port', async () => {
      const { client, browser } = await signedInClient({ redirectUri: 'http://127.0.0.1:1111/callback' });
      const onOtherPort = { ...client, redirectUri: 'http://127.0.0.1:2222/callback' };
      const request = await authorizationRequest(onOtherPort, ['files:read']);
      const { callback } = await browser.authorize(request.url);
      expect(callback.origin).to.equal('http://127.0.0.1:2222');
      const tokens = await exchangeCode(onOtherPort, callback, request);
      expect(tokens.scope).to.equal('files:read');
    });
  });

  describe('refusals', () => {
    let client: TestClient;
    let browser: PageSession;
    before(async () => {
      ({ client, browser } = await signedInClient());
    });

    /** A raw code exchange of the callback's code, with `extra` parameters. */
    const redeem = (callback: URL, extra: Record<string, string>) =>
      tokenRequest(client.as, {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: client.redirectUri,
        client_id: client.client.client_id,
        ...extra,
      });

    /** The error the authorization endpoint sends back to the client's callback. */
    async function authorizationError(url: string) {
      const res = await browser.fetch(url);
      expect(res.status).to.be.within(300, 399);
      return new URL(res.headers.get('location')!).searchParams.get('error');
    }

    it('refuses plain PKCE and a request without a code challenge', async () => {
      const request = await authorizationRequest(client, ['files:read']);
      const plain = new URL(request.url);
      plain.searchParams.set('code_challenge_method', 'plain');
      plain.searchParams.set('code_challenge', request.verifier);
      expect(await authorizationError(plain.href)).to.equal('invalid_request');
      const missing = new URL(request.url);
      missing.searchParams.delete('code_challenge');
      missing.searchParams.delete('code_challenge_method');
      expect(await authorizationError(missing.href)).to.equal('invalid_request');
    });

    it('refuses a code exchange without the verifier, or with a wrong one', async () => {
      const request = await authorizationRequest(client, ['files:read']);
      const { callback } = await browser.authorize(request.url);
      expect((await redeem(callback, {})).body.error).to.equal('invalid_grant');
      const wrong = await redeem(callback, { code_verifier: oauth.generateRandomCodeVerifier() });
      expect(wrong.body.error).to.equal('invalid_grant');
    });

    it('refuses a replayed code, and the tokens the first exchange gave stop working', async () => {
      const request = await authorizationRequest(client, ['files:read']);
      const { callback } = await browser.authorize(request.url);
      const tokens = await exchangeCode(client, callback, request);
      expect((await callMcp(mcpUrl, tokens.access_token)).status).to.equal(200);
      const replay = await redeem(callback, { code_verifier: request.verifier });
      expect(replay.body.error).to.equal('invalid_grant');
      expect((await callMcp(mcpUrl, tokens.access_token)).status).to.equal(401);
      expect((await tokenRequest(client.as, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: client.client.client_id })).body.error).to.equal('invalid_grant');
    });

    it('refuses a redirect_uri that does not match, without redirecting to it', async () => {
      const request = await authorizationRequest({ ...client, redirectUri: 'https://evil.example/callback' }, ['files:read']);
      const res = await browser.fetch(request.url);
      expect(res.status).to.equal(400);
      expect(res.headers.get('location')).to.equal(null);
      expect(await res.text()).to.include('redirect_uri');
    });

    it('refuses any resource other than {BASE_URL}/mcp, at authorization and at the token endpoint', async () => {
      for (const resource of [`${base}/api`, `${base}/mcp/`, 'https://other.example/mcp']) {
        const request = await authorizationRequest(client, ['files:read'], { resource });
        expect(await authorizationError(request.url), resource).to.equal('invalid_target');
      }
      const request = await authorizationRequest(client, ['files:read'], { resource: mcpUrl });
      const { callback } = await browser.authorize(request.url);
      const wrong = await redeem(callback, { code_verifier: request.verifier, resource: `${base}/api` });
      expect(wrong.body.error).to.equal('invalid_target');
    });

    it('answers 401 with the challenge for a garbage, expired or wrong-audience token, and ignores tokens outside the header', async () => {
      const request = await authorizationRequest(client, ['files:read']);
      const tokens = await exchangeCode(client, (await browser.authorize(request.url)).callback, request);
      for (const garbage of ['garbage', 'x'.repeat(43), `${tokens.access_token}x`]) {
        const res = await callMcp(mcpUrl, garbage);
        expect(res.status).to.equal(401);
        expect(res.challenge).to.include('error="invalid_token"').and.include('resource_metadata=');
      }
      const inQuery = await fetch(`${mcpUrl}?access_token=${tokens.access_token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(inQuery.status).to.equal(401);

      const setPayload = (field: string, value: unknown) =>
        env.container.db.execute(
          sql`update oauth_models set payload = jsonb_set(payload, ${`{${field}}`}::text[], ${JSON.stringify(value)}::jsonb) where kind = 'AccessToken' and id = ${tokens.access_token}`,
        );
      await setPayload('aud', 'https://other.example/mcp');
      expect((await callMcp(mcpUrl, tokens.access_token)).status).to.equal(401);
      await setPayload('aud', mcpUrl);
      expect((await callMcp(mcpUrl, tokens.access_token)).status).to.equal(200);
      await setPayload('exp', Math.floor(Date.now() / 1000) - 60);
      const expired = await callMcp(mcpUrl, tokens.access_token);
      expect(expired.status).to.equal(401);
      expect(expired.challenge).to.include('error="invalid_token"');
    });

    it("refuses a banned account's tokens and refreshes", async () => {
      const banned = await env.createAccount();
      const { tokens, client: bannedClient } = await connect({ user: banned, scopes: ['files:read'] });
      expect((await callMcp(mcpUrl, tokens.access_token)).status).to.equal(200);
      await env.container.services.accounts.ban(banned.username, 'spam');
      expect((await callMcp(mcpUrl, tokens.access_token)).status).to.equal(401);
      const res = await tokenRequest(bannedClient.as, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: bannedClient.client.client_id });
      expect(res.body.error).to.equal('invalid_grant');
    });
  });

  describe('connections', () => {
    it('lists connected assistants and disconnects one at once, leaving the API key and other clients working', async () => {
      const user = await env.createAccount();
      const first = await connect({ user, name: 'First Assistant', untick: ['files:delete', 'folders:write'] });
      const second = await connect({ user, name: 'Second Assistant', scopes: ['account:read'] });
      expect((await callMcp(mcpUrl, first.tokens.access_token)).status).to.equal(200);

      const listed = await env.api.get('/api/user/connections', { key: user.apiKey });
      expect(listed.status).to.equal(200);
      const connections = listed.body.data.connections as Record<string, unknown>[];
      expect(connections).to.have.length(2);
      const firstRow = connections.find((c) => c.clientId === first.client.client.client_id)!;
      expect(firstRow).to.have.all.keys('clientId', 'clientName', 'clientUri', 'scopes', 'connectedAt', 'lastUsedAt');
      expect(firstRow.clientName).to.equal('First Assistant');
      expect(firstRow.scopes).to.deep.equal(['account:read', 'files:read', 'files:write', 'folders:read']);
      expect(firstRow.lastUsedAt).to.be.a('string');
      expect(connections.find((c) => c.clientId === second.client.client.client_id)!.scopes).to.deep.equal(['account:read']);

      // Regenerating the API key does not disconnect anyone.
      const regenerated = await env.api.post('/api/user/regenerate-api-key', { key: user.apiKey });
      expect(regenerated.status).to.equal(200);
      const apiKey = regenerated.body.data.apiKey as string;
      expect(apiKey).to.be.a('string').and.not.equal(user.apiKey);
      expect((await callMcp(mcpUrl, first.tokens.access_token)).status).to.equal(200);

      const other = await env.createAccount();
      const notTheirs = await env.api.delete(`/api/user/connections/${encodeURIComponent(first.client.client.client_id)}`, { key: other.apiKey });
      expect(notTheirs.status).to.equal(404);

      const removed = await env.api.delete(`/api/user/connections/${encodeURIComponent(first.client.client.client_id)}`, { key: apiKey });
      expect(removed.status).to.equal(200);
      const access = await callMcp(mcpUrl, first.tokens.access_token);
      expect(access.status).to.equal(401);
      const refreshed = await tokenRequest(first.client.as, { grant_type: 'refresh_token', refresh_token: first.tokens.refresh_token!, client_id: first.client.client.client_id });
      expect(refreshed.body.error).to.equal('invalid_grant');

      expect((await callMcp(mcpUrl, second.tokens.access_token)).status).to.equal(200);
      expect((await env.api.get('/api/auth/me', { key: apiKey })).status).to.equal(200);
      const after = await env.api.get('/api/user/connections', { key: apiKey });
      expect(after.body.data.connections.map((c: { clientId: string }) => c.clientId)).to.deep.equal([second.client.client.client_id]);
      expect((await env.api.delete(`/api/user/connections/${encodeURIComponent(first.client.client.client_id)}`, { key: apiKey })).status).to.equal(404);
    });

    it('refuses a consent answer another site made the browser post (its Origin), before reading it', async () => {
      const { client, browser } = await signedInClient();
      const request = await authorizationRequest(client, ['files:read']);
      let res = await browser.fetch(request.url);
      while (res.status >= 300 && res.status < 400) res = await browser.fetch(new URL(res.headers.get('location')!, base).href);
      const action = /<form[^>]* action="([^"]+)"[^>]* id="consent-form"/.exec(await res.text())?.[1];
      expect(action).to.be.a('string');
      const forged = await browser.fetch(action!, { method: 'POST', body: new URLSearchParams({ decision: 'allow', scope: 'files:read' }), headers: { origin: 'https://evil.example' } });
      expect(forged.status).to.equal(403);
      expect(forged.headers.get('location')).to.equal(null);
    });
  });

  describe('a request that names no scope', () => {
    it('gets every MCP scope by default (RFC 6749 3.3) on the consent page, and a token with those left ticked', async () => {
      const { client, browser } = await signedInClient();
      const request = await authorizationRequest(client, []);
      const { callback, consentPage } = await browser.authorize(request.url, { untick: ['folders:write'] });
      for (const scope of ALL_SCOPES) expect(consentPage).to.include(`value="${scope}"`);
      const tokens = await exchangeCode(client, callback, request);
      expect(tokens.scope!.split(' ')).to.have.members(ALL_SCOPES.filter((s) => s !== 'folders:write'));
    });
  });

  describe('housekeeping', () => {
    it('prunes registrations that were never used after a day, and keeps used ones', async () => {
      const { as } = await discoverFromChallenge(mcpUrl);
      const unused = await registerClient(as, 'http://127.0.0.1:7777/callback');
      const { client: used } = await connect({ scopes: ['files:read'] });
      const dayAgo = Math.floor(Date.now() / 1000) - 25 * 3600;
      for (const id of [unused.client.client_id, used.client.client_id]) {
        await env.container.db.execute(sql`update oauth_models set payload = jsonb_set(payload, '{client_id_issued_at}', ${String(dayAgo)}::jsonb) where kind = 'Client' and id = ${id}`);
      }
      const result = await env.container.services.connections.prune();
      expect(result.unusedClients).to.be.at.least(1);
      const left = await env.container.db.execute<{ id: string }>(sql`select id from oauth_models where kind = 'Client' and id in (${unused.client.client_id}, ${used.client.client_id})`);
      expect(rowsOf<{ id: string }>(left).map((r) => r.id)).to.deep.equal([used.client.client_id]);
    });

    // Last in the file: it spends this address's registrations.
    it('limits open registration per IP (429 with Retry-After)', async () => {
      const { as } = await discoverFromChallenge(mcpUrl);
      const register = () =>
        fetch(as.registration_endpoint!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:7777/cb'] }) });
      let res = await register();
      for (let i = 0; i < 40 && res.status === 201; i++) res = await register();
      expect(res.status).to.equal(429);
      expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0);
    });
  });
});

function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
