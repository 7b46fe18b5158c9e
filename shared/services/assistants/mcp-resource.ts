/** The one resource tokens are issued for: the MCP endpoint, exactly (no trailing slash). */
export function mcpResourceOf(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/mcp`;
}
