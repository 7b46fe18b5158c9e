import { expect } from 'chai';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { type ClientRequest, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mcpTestTools, type McpTestTools } from '../helpers/node22.js';
import { connectAssistant } from '../helpers/oauth.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';

// The suite's scenarios that cannot apply to this server, and why (docs/reference.md#mcp-conformance).
const FIXTURES = "needs the reference server's test fixtures (test_* tools, test:// resources, prompts)";
const NOT_APPLICABLE: [RegExp, string][] = [
  [/^tools-call-|^elicitation-sep|^json-schema-2020-12$|^input-required-result-|^completion-complete$|^prompts-|^resources-read-(text|binary)$|^resources-templates-read$/, FIXTURES],
  [/^resources-(un)?subscribe$/, 'the ui:// resources never change: no subscribe capability'],
  [/^logging-set-level$/, 'no logging capability: tools report progress, not log messages'],
  [/^http-custom-header-server-validation$/, 'no tool declares x-mcp-header parameters'],
  [/^tasks-/, 'the tasks extension is not offered'],
];
// On the 2025 wire the server is stateless (no Mcp-Session-Id); these scenarios only run inside a session.
const SESSION_ONLY = /^server-sse-(multiple-streams|polling)$/;
// Checks of applicable scenarios that cannot apply, by scenario.
const CHECKS_NOT_APPLICABLE: Record<string, Record<string, string>> = {
  'server-stateless': {
    'sep-2575-server-rejects-undeclared-capability': FIXTURES,
    'sep-2575-missing-capability-http-400': FIXTURES,
    'sep-2575-http-server-no-independent-requests-on-stream': FIXTURES,
    'sep-2575-server-no-log-without-loglevel': FIXTURES,
    'sep-2575-server-sends-tools-list-changed-on-subscription': "a token's tool list never changes",
  },
  caching: { 'sep-2549-prompts-list-caching-hints': 'no prompts' },
};

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

interface TokenProxy {
  url: string;
  close(): void;
}

/**
 * A reverse proxy on loopback that adds the bearer token (the suite cannot send headers) and changes
 * nothing else, Host and Origin included. Closing it ends every stream still open through it.
 */
async function startTokenProxy(target: URL, token: string): Promise<TokenProxy> {
  const upstreams = new Set<ClientRequest>();
  const server = createServer((req, res) => {
    const upstream = request({ host: '127.0.0.1', port: target.port, path: req.url, method: req.method, headers: { ...req.headers, authorization: `Bearer ${token}` } }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstreams.add(upstream);
    upstream.on('close', () => upstreams.delete(upstream));
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${target.pathname}`,
    close() {
      for (const upstream of upstreams) upstream.destroy();
      server.close();
      server.closeAllConnections();
    },
  };
}

describe('MCP conformance suite against /mcp behind a bearer token', function () {
  this.timeout(300_000);
  let env: TestEnv;
  let tools: McpTestTools;
  let proxy: TokenProxy;
  let outDir: string;
  const running = new Set<ChildProcess>();

  before(async function () {
    try {
      tools = await mcpTestTools();
    } catch (err) {
      console.warn(`    skipped: Node 22 and @modelcontextprotocol/conformance could not be installed: ${(err as Error).message}`);
      this.skip();
    }
    outDir = await mkdtemp(path.join(tmpdir(), 'hfs-conformance-'));
    env = await createTestEnv({ env: { CAPTCHA_MAX_NUMBER: '2000' } });
    const { tokens } = await connectAssistant(env);
    proxy = await startTokenProxy(new URL(`${env.container.config.baseUrl}/mcp`), tokens.access_token);
  });
  after(async () => {
    for (const child of running) child.kill('SIGKILL');
    proxy?.close();
    await env?.close();
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  /** Runs every scenario a revision requires (at its wire) and answers each scenario's checks. */
  async function runSuite(revision: string): Promise<Map<string, Check[]>> {
    const dir = path.join(outDir, revision);
    const args = [tools.conformance, 'server', '--url', proxy.url, '--requirements', revision, '-o', dir];
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(tools.node, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      running.add(child);
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d.toString()));
      child.stderr.on('data', (d: Buffer) => (text += d.toString()));
      child.on('error', reject);
      // It exits 1 while any scenario fails, applicable or not: the checks below decide.
      child.on('close', () => {
        running.delete(child);
        resolve(text);
      });
    });
    const scenarios = new Map<string, Check[]>();
    for (const entry of await readdir(dir).catch(() => [])) {
      const name = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(entry)?.[1];
      if (name) scenarios.set(name, JSON.parse(await readFile(path.join(dir, entry, 'checks.json'), 'utf8')) as Check[]);
    }
    expect(scenarios.size, output).to.be.greaterThan(10);
    return scenarios;
  }

  /** What did not pass in each applicable scenario, besides the documented checks that cannot apply. */
  function failuresOf(scenarios: Map<string, Check[]>, revision: string) {
    const failures: string[] = [];
    const applicable: string[] = [];
    for (const [scenario, checks] of scenarios) {
      if (NOT_APPLICABLE.some(([pattern]) => pattern.test(scenario))) continue;
      if (revision !== '2026-07-28' && SESSION_ONLY.test(scenario)) continue;
      applicable.push(scenario);
      for (const check of checks) {
        if (check.status === 'FAILURE' || check.status === 'WARNING') {
          if (!CHECKS_NOT_APPLICABLE[scenario]?.[check.id]) failures.push(`${scenario} / ${check.id}: ${check.status} ${check.errorMessage ?? ''}`);
        }
      }
    }
    return { failures, applicable };
  }

  it('passes every applicable server scenario of revision 2026-07-28 (stateless, at its wire)', async () => {
    const { failures, applicable } = failuresOf(await runSuite('2026-07-28'), '2026-07-28');
    expect(failures).to.deep.equal([]);
    expect(applicable).to.include.members([
      'server-stateless', 'tools-list', 'resources-list', 'sep-2164-resource-not-found', 'dns-rebinding-protection',
      'server-sse-multiple-streams', 'caching', 'http-header-validation',
    ]);
  });

  it('passes every applicable server scenario of revision 2025-11-25 (the initialize handshake)', async () => {
    const { failures, applicable } = failuresOf(await runSuite('2025-11-25'), '2025-11-25');
    expect(failures).to.deep.equal([]);
    expect(applicable).to.include.members(['server-initialize', 'ping', 'tools-list', 'resources-list', 'dns-rebinding-protection']);
  });
});
