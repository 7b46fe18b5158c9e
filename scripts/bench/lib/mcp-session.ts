import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
// The client side of OAuth as the tests drive it: discovery, registration, sign-in, consent, code exchange.
import { ALL_SCOPES, authorizationRequest, discoverFromChallenge, exchangeCode, PageSession, registerClient } from '../../../test/helpers/oauth.js';

export type Revision = '2026-07-28' | '2025-06-18';

/** An MCP client of `revision` with the bearer token: 2026-07-28 sends each request alone, 2025-06-18 initializes first. */
export async function mcpClient(mcpUrl: string, token: string, revision: Revision): Promise<Client> {
  const options = revision === '2026-07-28' ? { versionNegotiation: { mode: { pin: revision } } } : { supportedProtocolVersions: [revision] };
  const client = new Client({ name: 'hfs-bench', version: '1.0.0' }, options as ConstructorParameters<typeof Client>[1]);
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** A real OAuth access token for every scope, through the real discovery, sign-in and consent pages. */
export async function accessToken(base: string, username: string, password: string): Promise<string> {
  const { as } = await discoverFromChallenge(`${base}/mcp`);
  const client = await registerClient(as, 'http://127.0.0.1:7777/callback', 'Bench Assistant');
  const browser = new PageSession(base);
  await browser.signIn(username, password);
  const request = await authorizationRequest(client, ALL_SCOPES);
  const { callback } = await browser.authorize(request.url);
  return (await exchangeCode(client, callback, request)).access_token;
}
