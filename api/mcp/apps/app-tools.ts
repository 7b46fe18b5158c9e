import { RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';

/** The MCP Apps (api/site/app/src/mcp-apps), each a ui:// resource built into one HTML file. */
export const MCP_APPS = {
  gallery: { title: 'File gallery', description: 'Thumbnails of the files list_files found; select files to rename, move or delete them.' },
  'file-card': { title: 'File card', description: 'One file: its preview, size, dates and links to copy.' },
  'drop-zone': { title: 'Drop zone', description: 'Lets the user drop or pick the file request_file_from_user asked for, right in the chat.' },
} as const;
export type McpAppName = keyof typeof MCP_APPS;

/** Which app shows which tool's result: the one place the tools and the apps meet. */
export const APP_OF_TOOL: Readonly<Record<string, McpAppName>> = {
  list_files: 'gallery',
  get_file: 'file-card',
  view_file: 'file-card',
  request_file_from_user: 'drop-zone',
};

export const appUri = (app: McpAppName) => `ui://hosted-files/${app}.html`;

/**
 * A tool's `_meta` naming its app, in the extension's form and the legacy flat key older hosts read;
 * undefined for a tool without one. Clients without the extension ignore it.
 */
export function appToolMeta(toolName: string): Record<string, unknown> | undefined {
  const app = APP_OF_TOOL[toolName];
  if (!app) return undefined;
  const resourceUri = appUri(app);
  return { ui: { resourceUri }, [RESOURCE_URI_META_KEY]: resourceUri };
}
