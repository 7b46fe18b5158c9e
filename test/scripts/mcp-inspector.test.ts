import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { mcpTestTools, type McpTestTools } from '../helpers/node22.js';
import { connectAssistant, SPEC_TOOL_NAMES } from '../helpers/oauth.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';


interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The Inspector's `--format json` output: `{result}` on stdout, or an `{error}` envelope on stderr. */
const resultOf = (res: CliResult) => (JSON.parse(res.stdout) as { result: Record<string, any> }).result;
const errorOf = (res: CliResult) => (JSON.parse(res.stderr) as { error: { code: string; message: string } }).error;

describe('MCP Inspector CLI against /mcp with an OAuth token', function () {
  // The first run on a machine installs Node 22 and the Inspector from the npm registry.
  this.timeout(600_000);
  let env: TestEnv;
  let mcpUrl: string;
  let username: string;
  let auth: string;
  let tools: McpTestTools;
  let home: string;
  const running = new Set<ChildProcess>();

  before(async () => {
    tools = await mcpTestTools();
    home = await mkdtemp(path.join(tmpdir(), 'hfs-inspector-'));
    env = await createTestEnv({ env: { CAPTCHA_MAX_NUMBER: '2000' } });
    mcpUrl = `${env.container.config.baseUrl}/mcp`;
    const { user, tokens } = await connectAssistant(env);
    username = user.username;
    auth = `Authorization: Bearer ${tokens.access_token}`;
  });
  after(async () => {
    for (const child of running) child.kill('SIGKILL');
    await env?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  /**
   * `mcp-inspector --cli URL ... --format json` on Node 22, as a CI job runs it: no TTY, and a home
   * of its own (it keeps a catalog and OAuth state under ~/.mcp-inspector).
   */
  const inspector = (...args: string[]) =>
    new Promise<CliResult>((resolve, reject) => {
      const argv = [tools.inspector, '--cli', mcpUrl, '--transport', 'http', '--format', 'json', ...args];
      const child = spawn(tools.node, argv, { env: { ...process.env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
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

  // legacy: the 2025 initialize handshake; modern: 2026-07-28, sessionless (no fallback to legacy).
  for (const era of ['legacy', 'modern']) {
    it(`lists all fifteen tools (protocol era ${era}), with 0 errors and 0 warnings from its --strict portability lint`, async () => {
      // --strict exits 6 for an error; warnings exit 0 and show as `schemaFindings` beside the result.
      const res = await inspector('--protocol-era', era, '--method', 'tools/list', '--header', auth, '--strict');
      expect(res.code, res.stderr).to.equal(0);
      expect(resultOf(res).tools.map((t: { name: string }) => t.name)).to.have.members(SPEC_TOOL_NAMES);
      expect(JSON.parse(res.stdout), res.stderr).to.not.have.property('schemaFindings');
      expect(res.stderr).to.not.match(/Warning:|Error:/);
    });
  }

  it('calls get_account and gets the signed-in account', async () => {
    const res = await inspector('--method', 'tools/call', '--tool-name', 'get_account', '--header', auth);
    expect(res.code, res.stderr).to.equal(0);
    const result = resultOf(res);
    expect(result.isError).to.not.equal(true);
    expect(result.structuredContent).to.include({ username, plan: 'free' });
    expect(JSON.parse(result.content[0].text)).to.deep.equal(result.structuredContent);
  });

  it('sees only the tools of a narrower token, and will not call another (exit 5)', async () => {
    const { tokens } = await connectAssistant(env, { scopes: ['account:read'] });
    const header = `Authorization: Bearer ${tokens.access_token}`;
    const listed = await inspector('--method', 'tools/list', '--header', header);
    expect(listed.code, listed.stderr).to.equal(0);
    expect(resultOf(listed).tools.map((t: { name: string }) => t.name)).to.deep.equal(['get_account']);
    const refused = await inspector('--method', 'tools/call', '--tool-name', 'list_files', '--header', header);
    expect(refused.code).to.equal(5);
    expect(errorOf(refused)).to.deep.equal({ code: 'tool_not_found', message: "Tool 'list_files' not found on server." });
  });

  it('exits 3 (auth_required) without a token or with a wrong one', async () => {
    // --stored-auth-only, as CI runs it: nothing stored, so the server's 401 is the answer.
    const stored = await inspector('--method', 'tools/list', '--stored-auth-only');
    expect(stored.code).to.equal(3);
    expect(stored.stdout).to.equal('');
    expect(errorOf(stored).code).to.equal('auth_required');
    expect(errorOf(stored).message).to.include('An access token is required');
    // Otherwise the 401 starts its own OAuth flow, which needs a person at a TTY.
    for (const header of [[], ['--header', 'Authorization: Bearer not-a-token']]) {
      const res = await inspector('--method', 'tools/list', ...header);
      expect(res.code, header.join(' ')).to.equal(3);
      expect(res.stdout).to.equal('');
      expect(errorOf(res).code).to.equal('auth_required');
      expect(errorOf(res).message).to.match(/^Interactive OAuth requires a TTY/);
    }
  });
});
