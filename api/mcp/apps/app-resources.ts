import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { RESOURCE_MIME_TYPE, registerAppResource } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';
import type { Config } from '../../../shared/config.js';
import { AppError } from '../../../shared/errors.js';
import { appDirectory } from '../../site/app-bundle.js';
import { MCP_APPS, type McpAppName, appUri } from './app-tools.js';

/** Where `npm run build` puts each app's single HTML file (scripts/build.mjs). */
export const MCP_APPS_DIR = 'mcp-apps';

/**
 * The apps as ui:// resources. Each declares its sandbox's CSP: our own site for images (thumbnails,
 * previews) and for uploads (the drop link, tus), nothing else; hosts read it from the read result's
 * content and, failing that, from the listing, so both carry it.
 */
export class McpAppResources {
  private readonly meta: Record<string, unknown>;
  private readonly html = new Map<McpAppName, Promise<string>>();

  constructor(
    config: Pick<Config, 'siteUrl'>,
    private readonly directory = path.join(appDirectory(), MCP_APPS_DIR),
  ) {
    const site = new URL(config.siteUrl).origin;
    this.meta = { ui: { csp: { connectDomains: [site], resourceDomains: [site] }, permissions: { clipboardWrite: {} }, prefersBorder: true } };
  }

  register(server: McpServer): void {
    for (const [app, { title, description }] of Object.entries(MCP_APPS) as [McpAppName, (typeof MCP_APPS)[McpAppName]][]) {
      const uri = appUri(app);
      registerAppResource(server, app, uri, { title, description, _meta: this.meta }, async () => ({
        contents: [{ uri, mimeType: RESOURCE_MIME_TYPE, text: await this.htmlOf(app), _meta: this.meta }],
      }));
    }
  }

  /** Read once per process (the server is made per request); a missing build is retried next time. */
  private htmlOf(app: McpAppName): Promise<string> {
    let html = this.html.get(app);
    if (!html) {
      html = readFile(path.join(this.directory, `${app}.html`), 'utf8').catch(() => {
        this.html.delete(app);
        throw AppError.unavailable('The MCP Apps are not built: run npm run build', 60);
      });
      this.html.set(app, html);
    }
    return html;
  }
}
