import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../shared/db/open-database.js';
// The client side of OAuth as the tests drive it: discovery, registration, sign-in, consent, code exchange.
import { ALL_SCOPES, authorizationRequest, discoverFromChallenge, exchangeCode, PageSession, registerClient } from '../../test/helpers/oauth.js';
import { percentile } from './lib/load.js';
import { startService } from './lib/processes.js';
import { SEEDED_FOLDERS, seedFiles } from './lib/seed-files.js';
import type { BenchRow } from './report.js';

// BENCH_DASHBOARD_FILES scales the library down for a quick run.
const FILES = Number(process.env.BENCH_DASHBOARD_FILES ?? 1_000_000);
// Every case runs in each of ROUNDS rounds for ROUND_MS (MIN_PER_ROUND requests at least, one at a
// time), so load from other processes on the machine falls on all cases alike.
const ROUNDS = 3;
const ROUND_MS = 2_000;
const MIN_PER_ROUND = 7;
const MAX_PER_ROUND = 100;
const TARGET_MS = 25;
// The website's page (api/site/app use-file-list), and the dashboard's largest limit for the middle page.
const PAGE = 24;
const DEEP_LIMIT = 100;

/** A request's time in ms, and whether it failed (a statement past DB_STATEMENT_TIMEOUT_MS is a 503). */
interface Sample {
  ms: number;
  failed?: boolean;
}

interface Case {
  name: string;
  measure: () => Promise<Sample>;
  samples: Sample[];
}

/**
 * Runs every case in interleaved rounds, after a warm-up request each. In a round a case runs for
 * ROUND_MS with MIN_PER_ROUND requests at least, unless they take seconds: then until 3 × ROUND_MS.
 */
async function runCases(cases: Case[]): Promise<void> {
  for (const c of cases) await c.measure();
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of cases) {
      const began = performance.now();
      for (let n = 0; n < MAX_PER_ROUND; n++) {
        const elapsed = performance.now() - began;
        if (elapsed >= ROUND_MS && (n >= MIN_PER_ROUND || elapsed >= 3 * ROUND_MS)) break;
        c.samples.push(await c.measure());
      }
    }
  }
}

/** The case's p95 against the target; its p50 and count on stdout, to read the noise by. */
function rowOf(c: Case, measured: string): BenchRow {
  const times = c.samples.map((s) => s.ms);
  const failed = c.samples.filter((s) => s.failed).length;
  const p95 = percentile(times, 95);
  process.stdout.write(`  ${c.name}: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, ${times.length} requests\n`);
  const failures = failed ? ` (${failed} of ${times.length} answered 503)` : '';
  return { name: `${c.name}, p95 ${measured}${failures}`, value: p95, unit: 'ms', target: ['<=', TARGET_MS] };
}

/** GET /api/user/dashboard with one query string: the service's own Server-Timing, or the wall time of the exchange. */
function dashboard(base: string, key: string, query: string, wall = false): () => Promise<Sample> {
  return async () => {
    const began = performance.now();
    const res = await fetch(`${base}/api/user/dashboard?${query}`, { headers: { 'x-api-key': key } });
    const body = await res.text();
    if (res.status !== 200 && res.status !== 503) throw new Error(`dashboard?${query} answered ${res.status}: ${body}`);
    const ms = wall ? performance.now() - began : Number(/dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '')?.[1]);
    return { ms, failed: res.status !== 200 };
  };
}

/** A real OAuth access token for every scope, through the real discovery, sign-in and consent pages. */
async function accessToken(base: string): Promise<string> {
  const { as } = await discoverFromChallenge(`${base}/mcp`);
  const client = await registerClient(as, 'http://127.0.0.1:7777/callback', 'Bench Assistant');
  const browser = new PageSession(base);
  await browser.signIn('bench', 'bench-pass-123');
  const request = await authorizationRequest(client, ALL_SCOPES);
  const { callback } = await browser.authorize(request.url);
  return (await exchangeCode(client, callback, request)).access_token;
}

/**
 * A session-less MCP client whose HTTP exchanges are timed: /mcp answers through the SDK's Node
 * handler, past the middleware that sets Server-Timing, so its time is the wall time of the
 * exchange on loopback (request sent to response body read), without the client's own parsing.
 */
async function timedMcpClient(mcpUrl: string, token: string): Promise<{ client: Client; lastMs: () => number }> {
  let last = 0;
  const timedFetch = async (url: string | URL, init?: RequestInit) => {
    const began = performance.now();
    const res = await fetch(url, init);
    const body = await res.arrayBuffer();
    last = performance.now() - began;
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  const client = new Client({ name: 'hfs-bench', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } } as ConstructorParameters<typeof Client>[1]);
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { fetch: timedFetch, requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return { client, lastMs: () => last };
}

interface ListFilesResult {
  structuredContent?: { files: unknown[]; nextCursor: string | null };
  isError?: boolean;
}

/**
 * One account holding FILES files (a million by default), seeded in SQL: the dashboard's first page,
 * its middle page, searches that find few and many, every sort, a folder; and MCP list_files paging
 * with its cursor, from the top and from the middle of the library.
 */
export async function run(): Promise<{ title: string; rows: BenchRow[] }> {
  const service = await startService({ CAPTCHA_MAX_NUMBER: '3000' });
  try {
    const database = await openDatabase({ databaseUrl: service.env.DATABASE_URL, dataDir: service.env.DATA_DIR! });
    let middle: Date;
    let folderId: string;
    try {
      const seeding = performance.now();
      // Seeded in the database directly: a million uploads through the API would measure the uploads.
      await seedFiles(database.db, 'bench', FILES);
      process.stdout.write(`\nDashboard: ${FILES} files seeded in ${((performance.now() - seeding) / 1000).toFixed(0)} s\n`);
      const found = await database.db.execute(sql`
        select (select created_at from files f where f.account_id = a.id order by created_at desc offset ${Math.floor(FILES / 2)} limit 1) as at,
               (select id from folders where account_id = a.id and name = ${SEEDED_FOLDERS[0]}) as folder
        from accounts a where a.username = 'bench'`);
      const [row] = (found as unknown as { rows: { at: Date | string; folder: string }[] }).rows;
      middle = new Date(row!.at);
      folderId = row!.folder;
    } finally {
      await database.close();
    }

    const deepPage = Math.max(1, Math.floor(FILES / DEEP_LIMIT / 2));
    const queries: [string, string][] = [
      ['page 1', `page=1&limit=${PAGE}`],
      [`page ${deepPage} of limit ${DEEP_LIMIT} (the middle)`, `page=${deepPage}&limit=${DEEP_LIMIT}`],
      [`page ${deepPage} of limit ${DEEP_LIMIT}, by filename`, `page=${deepPage}&limit=${DEEP_LIMIT}&sortBy=filename&sortOrder=asc`],
      ['search, few matches ("passport")', `page=1&limit=${PAGE}&search=passport`],
      ['search, many matches ("screenshot", 1 in 5)', `page=1&limit=${PAGE}&search=screenshot`],
      ['search, many matches, page 3 by size', `page=3&limit=${PAGE}&search=screenshot&sortBy=size&sortOrder=asc`],
      ['one folder (6 % of the files)', `page=1&limit=${PAGE}&folderId=${folderId}`],
    ];
    for (const sortBy of ['timestamp', 'size', 'filename', 'originalName']) {
      for (const sortOrder of ['asc', 'desc']) queries.push([`sort ${sortBy} ${sortOrder}`, `page=1&limit=${PAGE}&sortBy=${sortBy}&sortOrder=${sortOrder}`]);
    }
    const rest: Case[] = queries.map(([name, query]) => ({ name: `dashboard ${name}`, measure: dashboard(service.url, service.apiKey, query), samples: [] }));

    const { client, lastMs } = await timedMcpClient(`${service.url}/mcp`, await accessToken(service.url));
    try {
      const listFiles = async (args: Record<string, unknown>) => {
        const result = (await client.callTool({ name: 'list_files', arguments: args })) as ListFilesResult;
        if (result.isError || !result.structuredContent) throw new Error(`list_files failed: ${JSON.stringify(result).slice(0, 500)}`);
        return result.structuredContent;
      };
      // Cursors as an assistant holds them: the second page's, and one from the middle of the library
      // (reached through the tool's own date filter rather than by paging 20,000 times).
      const second = (await listFiles({})).nextCursor;
      const deep = (await listFiles({ uploadedBefore: middle.toISOString() })).nextCursor;
      if (!second || !deep) throw new Error('list_files gave no cursor');
      const calls: [string, Record<string, unknown>][] = [
        ['first page', {}],
        ['next page by cursor', { cursor: second }],
        ['cursor from the middle', { cursor: deep }],
        ['cursor from the middle, 100 a page', { cursor: deep, limit: 100 }],
        ['search, few matches ("passport")', { search: 'passport' }],
      ];
      const mcp: Case[] = calls.map(([name, args]) => ({
        name: `list_files ${name}`,
        measure: async () => {
          await listFiles(args);
          return { ms: lastMs() };
        },
        samples: [],
      }));
      // The same measure on REST: what of list_files's time is MCP's (bearer token, SDK), not the listing's.
      const control: Case = { name: `dashboard page 1 of 25 (control for list_files)`, measure: dashboard(service.url, service.apiKey, 'page=1&limit=25', true), samples: [] };
      await runCases([...rest, ...mcp, control]);
      process.stdout.write('\n');
      const rows = [...rest.map((c) => rowOf(c, 'server time')), ...[...mcp, control].map((c) => rowOf(c, 'wall time'))];
      return { title: `Dashboard and list_files, ${FILES} files in one account (service on ${service.database})`, rows };
    } finally {
      await client.close();
    }
  } finally {
    await service.stop();
  }
}
