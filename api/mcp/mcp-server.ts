import { type AuthInfo, type CallToolResult, createMcpHandler, type Icon, McpServer } from '@modelcontextprotocol/server';
import type { Container } from '../../shared/container.js';
import type { FileView } from '../../shared/contracts/file.contract.js';
import { isAppError } from '../../shared/errors.js';
import type { DropArrivals } from '../../shared/services/folders/drop-link.service.js';
import type { McpPrincipal } from '../oauth/access-tokens.js';
import type { McpAppResources } from './apps/app-resources.js';
import { appToolMeta } from './apps/app-tools.js';
import { mcpIcons } from './mcp-icons.js';
import { portableSchema } from './portable-schema.js';
import { TOOLS } from './tools/index.js';
import type { McpTool, ToolContext } from './tools/tool.js';

export interface McpServerDeps {
  services: Container['services'];
  logger: Container['logger'];
  arrivals: DropArrivals;
  uploadMaxBytes: number;
  /** the MCP Apps' ui:// resources */
  apps: McpAppResources;
}

// The MCP interface's own version (tools and their schemas), not the package's.
const SERVER_INFO = { name: 'hosted-files', title: 'Hosted Files', version: '1.0.0' };

/** The caller, as the route hands it to the SDK (`AuthInfo.extra`). */
export function authInfoOf(token: string, caller: McpPrincipal): AuthInfo {
  return { token, clientId: caller.clientId, scopes: caller.scopes, extra: { caller } };
}

/**
 * The MCP endpoint's handler: a fresh server per request (both the 2026-07-28 stateless revision
 * and, through the SDK's fallback, 2025-era clients), holding only the tools the caller's scopes allow.
 */
export function createMcpEndpoint(deps: McpServerDeps, { maxRequestBodySize, baseUrl }: { maxRequestBodySize: number; baseUrl: string }) {
  const icons = mcpIcons(baseUrl);
  return createMcpHandler(
    ({ authInfo }) => {
      const caller = authInfo?.extra?.caller as McpPrincipal | undefined;
      if (!caller) throw new Error('MCP request without a verified caller');
      const server = new McpServer({ ...SERVER_INFO, icons });
      for (const tool of TOOLS) if (caller.scopes.includes(tool.scope)) register(server, tool as McpTool, caller, deps, icons);
      deps.apps.register(server);
      return server;
    },
    { legacy: 'stateless', maxRequestBodySize, onerror: logSdkReport(deps.logger) },
  );
}

/**
 * What the SDK reports. A request it turns away (4xx) it reports with an error made on the spot, a
 * plain Error or one of its protocol errors (a JSON-RPC code): the client's mistake, one line. Anything
 * else was thrown while serving (its answer is a 500): our fault, logged with its stack.
 */
function logSdkReport(logger: Container['logger']) {
  return (err: Error) => {
    if (Object.getPrototypeOf(err) === Error.prototype || typeof (err as { code?: unknown }).code === 'number') {
      logger.info({ reason: err.message }, 'MCP request refused');
    } else {
      logger.error({ err }, 'MCP request failed');
    }
  };
}

function register(server: McpServer, tool: McpTool, caller: McpPrincipal, deps: McpServerDeps, icons: Icon[]) {
  server.registerTool(
    tool.name,
    { title: tool.title, description: tool.description, inputSchema: portableSchema(tool.input), outputSchema: portableSchema(tool.output), annotations: tool.annotations, icons, _meta: appToolMeta(tool.name) },
    async (input: unknown, extra): Promise<CallToolResult> => {
      const { signal, notify } = extra.mcpReq;
      const progressToken = extra.mcpReq._meta?.progressToken;
      const context: ToolContext = {
        caller,
        services: deps.services,
        arrivals: deps.arrivals,
        uploadMaxBytes: deps.uploadMaxBytes,
        signal,
        progress: async (progress, total, message) => {
          if (progressToken !== undefined) await notify({ method: 'notifications/progress', params: { progressToken, progress, total, message } });
        },
      };
      try {
        const { data, image, links = [] } = await tool.run(context, input as never);
        const structured = data as Record<string, unknown>;
        const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(structured) }];
        if (image) content.push({ type: 'image', data: image.data.toString('base64'), mimeType: image.mimeType });
        content.push(...links.map(resourceLinkOf));
        return { content, structuredContent: structured };
      } catch (err) {
        return failure(err, tool.name, deps.logger);
      }
    },
  );
}

/** A refusal says what was wrong; anything else is logged and reported without its details. */
function failure(err: unknown, tool: string, logger: Container['logger']): CallToolResult {
  if (isAppError(err) && err.expose) return { content: [{ type: 'text', text: err.message }], isError: true };
  logger.error({ err, tool }, 'MCP tool failed');
  return { content: [{ type: 'text', text: `${tool} failed on the server; nothing more is known to the client. Try again later.` }], isError: true };
}

/** A file as a link the client can fetch: its hosted URL (signed for a private file), as the result gives it. */
function resourceLinkOf(file: FileView): CallToolResult['content'][number] {
  return { type: 'resource_link', uri: file.url, name: file.filename, title: file.originalName, mimeType: file.mimeType, size: file.size };
}
