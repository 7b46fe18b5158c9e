import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** The revisions the MCP tests speak: the 2025 handshake (served statelessly) and the stateless 2026 one. */
export const MCP_REVISIONS = ['2025-06-18', '2026-07-28'] as const;
export type McpRevision = (typeof MCP_REVISIONS)[number];

/** The SDK's own client over real HTTP, speaking exactly `revision`, with a bearer token. */
export async function mcpClient(mcpUrl: string, token: string, revision: McpRevision, options: ConstructorParameters<typeof Client>[1] = {}) {
  const version = revision === '2026-07-28' ? { versionNegotiation: { mode: { pin: revision } } } : { supportedProtocolVersions: [revision] };
  const client = new Client({ name: 'hfs-test', version: '1.0.0' }, { ...options, ...version } as ConstructorParameters<typeof Client>[1]);
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}
