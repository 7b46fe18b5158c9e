/** The spec's MCP scopes, each with the words the consent page shows for it. */
export const MCP_SCOPES = {
  'account:read': 'See your username, plan, limits and usage',
  'files:read': 'List your files and look at them',
  'files:write': 'Upload, rename and move your files',
  'files:delete': 'Delete your files',
  'folders:read': 'List your folders',
  'folders:write': 'Create, delete and share your folders',
} as const;

export type McpScope = keyof typeof MCP_SCOPES;

export const MCP_SCOPE_NAMES = Object.keys(MCP_SCOPES) as McpScope[];

/** The MCP scopes named in a space-separated scope string, in the spec's order, each once. */
export function mcpScopesIn(scope: string | undefined): McpScope[] {
  const named = new Set((scope ?? '').split(' '));
  return MCP_SCOPE_NAMES.filter((name) => named.has(name));
}

/** The one resource tokens are issued for: the MCP endpoint, exactly (no trailing slash). */
export function mcpResourceOf(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/mcp`;
}
