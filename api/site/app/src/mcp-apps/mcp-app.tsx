import { App } from '@modelcontextprotocol/ext-apps';
import { type ComponentType, render } from 'preact';
import { ToastProvider } from '../toasts/toasts.js';
import '../styles/tokens.css';
import '../styles/base.css';
import '../styles.css';
import './mcp-apps.css';

// What the three MCP Apps share: the connection to the host (ext-apps' App over postMessage), the
// tool's input and result as they arrive, the host's light or dark theme on our own tokens, and
// tool calls of their own (the host sends them to our server under the assistant's token and scopes).

/** A tool's result as the host relays it. */
export type CallToolResult = Parameters<NonNullable<App['ontoolresult']>>[0];

export interface AppViewProps {
  app: App;
  /** the arguments the assistant called the tool with */
  input: Record<string, unknown> | undefined;
  /** the tool's result, once the host sends it */
  result: CallToolResult | undefined;
}

/** Starts an app: handlers first (the host may send the input right after connecting), then the view. */
export function startApp(name: string, View: ComponentType<AppViewProps>): void {
  const app = new App({ name: `hosted-files-${name}`, version: '1.0.0' });
  const root = document.getElementById('app')!;
  let input: AppViewProps['input'];
  let result: AppViewProps['result'];
  const draw = () =>
    render(
      <ToastProvider>
        <View app={app} input={input} result={result} />
      </ToastProvider>,
      root,
    );
  app.ontoolinput = (params) => {
    input = params.arguments;
    draw();
  };
  app.ontoolresult = (params) => {
    result = params;
    draw();
  };
  app.onhostcontextchanged = (context) => applyTheme(context.theme);
  draw();
  void app.connect().then(() => applyTheme(app.getHostContext()?.theme));
}

/** The host's theme picks ours (tokens.css reads html[data-theme]); none: the system's. */
function applyTheme(theme: 'light' | 'dark' | undefined): void {
  if (theme) document.documentElement.dataset.theme = theme;
}

/** A tool's structured result; a refusal (isError) becomes an Error with the tool's own words. */
export async function callTool<T>(app: App, name: string, args: Record<string, unknown>): Promise<T> {
  return structuredOf<T>(await app.callServerTool({ name, arguments: args }));
}

export function structuredOf<T>(result: CallToolResult): T {
  if (result.isError) throw new Error(textOf(result) || 'The tool call failed');
  return result.structuredContent as T;
}

export function textOf(result: CallToolResult): string {
  return result.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join(' ');
}

/** Per-item results (rename, move, delete): the first failure as an Error. */
export function assertAllOk(results: { filename: string; ok: boolean; error?: string }[]): void {
  const failed = results.find((r) => !r.ok);
  if (failed) throw new Error(`${failed.filename}: ${failed.error ?? 'failed'}`);
}

/** What the app shows while the host has not sent the tool's result yet, or when the tool refused. */
export function Waiting({ result, what }: { result: CallToolResult | undefined; what: string }) {
  if (result?.isError) return <p class="error" role="alert">{textOf(result) || 'The tool call failed.'}</p>;
  return <p class="muted" role="status">{`Loading ${what}…`}</p>;
}
