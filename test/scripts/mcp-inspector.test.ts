import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { inspectorTools, type InspectorTools } from '../helpers/node22.js';
import { connectAssistant } from '../helpers/oauth.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';

const TOOL_NAMES = [
  'get_account', 'list_files', 'get_file', 'view_file', 'request_file_from_user', 'check_file_handoff', 'upload_file',
  'upload_from_url', 'rename_files', 'move_files', 'delete_files', 'list_folders', 'create_folder', 'delete_folder', 'share_folder',
];

describe('MCP Inspector CLI against /mcp', function () {
  // The first run on a machine installs Node 22 and the Inspector from the npm registry.
  this.timeout(600_000);
  let env: TestEnv;
  let mcpUrl: string;
  let username: string;
  let token: string;
  let tools: InspectorTools;
  let home: string;
  const running = new Set<ChildProcess>();

  before(async () => {
    tools = await inspectorTools();
    env = await createTestEnv({ env: { CAPTCHA_MAX_NUMBER: '2000' } });
    mcpUrl = `${env.container.config.baseUrl}/mcp`;
    const connected = await connectAssistant(env);
    username = connected.user.username;
    token = connected.tokens.access_token;
    home = await mkdtemp(path.join(tmpdir(), 'hfs-inspector-'));
  });
  after(async () => {
    for (const child of running) child.kill('SIGKILL');
    await env?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  /** `mcp-inspector --cli` on Node 22 with `args`, as a script would run it: no TTY, a home of its own. */
  const inspector = (...args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(tools.node, [tools.inspector, '--cli', ...args], { env: { ...process.env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
      running.add(child);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`mcp-inspector ${args.join(' ')} timed out; stderr: ${stderr}`));
      }, 60_000);
      child.on('close', (code) => {
        clearTimeout(timer);
        running.delete(child);
        resolve({ code, stdout, stderr });
      });
    });

  it('lists all fifteen tools with the OAuth access token', async () => {
    const res = await inspector(mcpUrl, '--transport', 'http', '--method', 'tools/list', '--header', `Authorization: Bearer ${token}`, '--format', 'json');
    console.log(res);
  });

  it('explore', async () => {
    const h = ['--header', `Authorization: Bearer ${token}`];
    for (const args of [
      [mcpUrl, '--method', 'tools/list', ...h, '--strict', '--format', 'json'],
      [mcpUrl, '--method', 'tools/list', ...h, '--protocol-era', 'modern', '--format', 'json'],
      [mcpUrl, '--method', 'tools/list', ...h, '--protocol-era', 'auto', '--format', 'json'],
      [mcpUrl, '--method', 'tools/list', '--stored-auth-only', '--format', 'json'],
      [mcpUrl, '--method', 'tools/list', '--header', 'Authorization: Bearer nope', '--format', 'json'],
      [mcpUrl, '--method', 'tools/call', '--tool-name', 'nope', ...h, '--format', 'json'],
      [mcpUrl, '--method', 'tools/call', '--tool-name', 'get_account', ...h, '--protocol-era', 'modern', '--format', 'json'],
    ]) {
      const res = await inspector(...args);
      console.log(args.slice(1).join(' ').replace(token, 'T'), res.code, res.stdout.slice(0, 400));
      require('fs').writeFileSync('/tmp/strict.txt', res.stderr);
      console.log(process.env.NODE_OPTIONS, require('child_process').execSync(`find ${home}`).toString());
      break;
    }
  });

  it('without a token', async () => {
    const res = await inspector(mcpUrl, '--transport', 'http', '--method', 'tools/list', '--format', 'json');
    console.log(res);
  });

  it('calls get_account', async () => {
    const res = await inspector(mcpUrl, '--transport', 'http', '--method', 'tools/call', '--tool-name', 'get_account', '--header', `Authorization: Bearer ${token}`, '--format', 'json');
    console.log(res);
  });
});
