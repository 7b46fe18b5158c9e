import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { build } from 'vite';
import { watchConsole } from './dashboard.js';

// A web host of MCP Apps for browser tests, as the extension's spec has hosts do it: the host page
// on one origin puts a sandbox proxy page on another origin into an iframe; the proxy's CSP header
// comes from the resource's _meta.ui.csp, and it writes the app's HTML into an inner sandboxed
// iframe and relays messages both ways. The host talks to the app through ext-apps' AppBridge; the
// app's tool calls go to a real SDK client (the assistant's token) in the test. Both pages come from
// one small server of the test, by two names (127.0.0.1 and localhost): two origins.

const SANDBOX_FLAGS = 'allow-scripts allow-same-origin allow-forms';

export interface UiCsp {
  connectDomains?: string[];
  resourceDomains?: string[];
}

/** The bridge as an IIFE (window.McpHost), built once per test file. */
export async function bundleHostBridge(): Promise<string> {
  // Vite sets process.env.NODE_ENV=production in the process that builds: the test processes this
  // run starts later (admin CLI, web) must not inherit it.
  const nodeEnv = process.env.NODE_ENV;
  let output: Awaited<ReturnType<typeof build>>;
  try {
    output = await build({
      configFile: false,
      logLevel: 'silent',
      build: {
        write: false,
        minify: false,
        lib: { entry: fileURLToPath(new URL('mcp-app-host.entry.ts', import.meta.url)), formats: ['iife'], name: 'McpHost' },
      },
    });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  const [result] = Array.isArray(output) ? output : [output];
  const chunk = (result as { output: { type: string; code?: string }[] }).output.find((o) => o.type === 'chunk');
  return chunk!.code!;
}

/** The CSP a host sets on the sandbox from the resource's declaration (basic-host's rules, without unsafe-eval). */
export function sandboxCsp(csp: UiCsp): string {
  const resources = (csp.resourceDomains ?? []).join(' ');
  const connect = (csp.connectDomains ?? []).join(' ');
  return [
    "default-src 'none'",
    "script-src 'unsafe-inline'",
    `style-src 'unsafe-inline' ${resources}`,
    `img-src data: blob: ${resources}`,
    `font-src ${resources}`,
    `media-src data: blob: ${resources}`,
    `connect-src ${connect || "'none'"}`,
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
  ].join('; ');
}

const SANDBOX_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Sandbox</title>
<style>html,body{margin:0;height:100%}iframe{border:0;width:100%;height:100%}</style></head><body>
<script>
const inner = document.createElement('iframe');
inner.setAttribute('sandbox', '${SANDBOX_FLAGS}');
inner.title = 'MCP App';
document.body.append(inner);
const hostOrigin = new URL(document.referrer).origin;
window.addEventListener('message', (event) => {
  if (event.source === window.parent) {
    if (event.origin !== hostOrigin) return;
    if (event.data?.method === 'ui/notifications/sandbox-resource-ready') {
      const doc = inner.contentDocument;
      doc.open();
      doc.write(event.data.params.html);
      doc.close();
    } else inner.contentWindow.postMessage(event.data, '*');
  } else if (event.source === inner.contentWindow) {
    window.parent.postMessage(event.data, hostOrigin);
  }
});
window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, hostOrigin);
</script></body></html>`;

const HOST_SCRIPT = `
window.opened = [];
window.showApp = async ({ html, csp, args, result }) => {
  const { AppBridge, PostMessageTransport } = window.McpHost;
  const outer = document.createElement('iframe');
  outer.setAttribute('sandbox', '${SANDBOX_FLAGS}');
  outer.title = 'MCP App sandbox';
  outer.src = window.SANDBOX_URL + '?csp=' + encodeURIComponent(JSON.stringify(csp));
  const ready = new Promise((resolve) => {
    window.addEventListener('message', function onReady(event) {
      if (event.source === outer.contentWindow && event.data?.method === 'ui/notifications/sandbox-proxy-ready') {
        window.removeEventListener('message', onReady);
        resolve();
      }
    });
  });
  document.querySelector('main').append(outer);
  await ready;
  const bridge = new AppBridge(null, { name: 'test-host', version: '1.0.0' }, { serverTools: {}, openLinks: {}, updateModelContext: { text: {} } }, { hostContext: { theme: 'light' } });
  bridge.oncalltool = (params) => window.hostCallTool(params);
  bridge.onopenlink = async ({ url }) => (window.opened.push(url), {});
  bridge.onupdatemodelcontext = async () => ({});
  bridge.onsizechange = ({ height }) => { if (height) outer.style.height = height + 'px'; };
  const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
  await bridge.connect(new PostMessageTransport(outer.contentWindow, outer.contentWindow));
  await bridge.sendSandboxResourceReady({ html, csp });
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
};`;

export interface HostPages {
  hostUrl: string;
  close(): Promise<void>;
}

/** Serves the host page (with `bridge`) at 127.0.0.1 and the sandbox proxy at localhost, on one port. */
export async function serveHostPages(bridge: string): Promise<HostPages> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/sandbox.html') {
      const csp = JSON.parse(url.searchParams.get('csp') ?? '{}') as UiCsp;
      res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': sandboxCsp(csp) }).end(SANDBOX_PAGE);
    } else {
      const sandboxUrl = `http://localhost:${port}/sandbox.html`;
      res.writeHead(200, { 'content-type': 'text/html' }).end(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test host</title><style>iframe{border:0;width:100%;height:600px}</style></head><body><main></main><script>window.SANDBOX_URL = ${JSON.stringify(sandboxUrl)};</script><script>${bridge}</script><script>${HOST_SCRIPT}</script></body></html>`,
      );
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { hostUrl: `http://127.0.0.1:${port}/host.html`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A page of the test host in `context`: the app's tool calls go to `client`. Console errors are watched. */
export async function openHost(context: BrowserContext, pages: HostPages, client: Client): Promise<Page> {
  const page = await context.newPage();
  watchConsole(page);
  await page.exposeFunction('hostCallTool', (params: { name: string; arguments?: Record<string, unknown> }) => client.callTool(params));
  await page.goto(pages.hostUrl);
  return page;
}

/** Reads the app's resource and shows it with `tool`'s result, as a host does after the call; answers the app's frame. */
export async function showApp(page: Page, client: Client, uri: string, args: Record<string, unknown>, result: CallToolResult): Promise<Frame> {
  const { contents } = await client.readResource({ uri });
  const content = contents[0] as unknown as { text: string; _meta: { ui: { csp: UiCsp } } };
  const before = new Set(page.frames());
  await page.evaluate((app) => (window as unknown as { showApp(app: unknown): Promise<void> }).showApp(app), { html: content.text, csp: content._meta.ui.csp, args, result });
  const inner = page.frames().find((frame) => !before.has(frame) && frame.parentFrame() !== page.mainFrame());
  if (!inner) throw new Error('the app frame was not found');
  return inner;
}
