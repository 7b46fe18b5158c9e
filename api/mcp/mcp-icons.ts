import type { Icon } from '@modelcontextprotocol/server';
import { SITE_ICON_PNG_PATH, SITE_ICON_SVG_PATH } from '../site/pages/assets.js';

/**
 * The site's icon for the server and its tools (MCP 2025-11-25), from our own origin: clients must
 * show PNG and should show SVG, so both.
 */
export function mcpIcons(baseUrl: string): Icon[] {
  return [
    { src: `${baseUrl}${SITE_ICON_SVG_PATH}`, mimeType: 'image/svg+xml', sizes: ['any'] },
    { src: `${baseUrl}${SITE_ICON_PNG_PATH}`, mimeType: 'image/png', sizes: ['256x256'] },
  ];
}
