import type { Client } from '@modelcontextprotocol/client';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../shared/db/open-database.js';
import { concurrently, median, percentile } from './lib/load.js';
import { accessToken, mcpClient } from './lib/mcp-session.js';
import { startService } from './lib/processes.js';
import type { BenchRow } from './report.js';

const FILES = 2_000;
const CALLERS = 8;
const CALLS_PER_ROUND = 400;
const ROUNDS = 5;
const PAGE = 25;

/** `total` calls of `call` by CALLERS callers at once, each its own client; the p50 latency in ms. */
async function p50Of<T>(clients: T[], call: (client: T) => Promise<unknown>): Promise<number> {
  let next = 0;
  const { latencies, failures } = await concurrently(CALLS_PER_ROUND, CALLERS, async () => {
    const client = clients[next++ % clients.length]!;
    const began = performance.now();
    try {
      await call(client);
      return { status: 200, ms: performance.now() - began };
    } catch {
      return { status: 500, ms: performance.now() - began };
    }
  });
  if (failures > 0) throw new Error(`${failures} calls failed`);
  return percentile(latencies, 50);
}

/**
 * MCP overhead: list_files and get_file over /mcp with a real OAuth token against the REST dashboard on
 * the same data, 8 callers at once, in interleaved rounds; and a session-less 2026-07-28 request against
 * one inside a 2025-06-18 session.
 */
export async function run(): Promise<{ title: string; rows: BenchRow[] }> {
  const service = await startService({ CAPTCHA_MAX_NUMBER: '3000' });
  try {
    const database = await openDatabase({ databaseUrl: service.env.DATABASE_URL, dataDir: service.env.DATA_DIR! });
    await database.db.execute(sql`
      insert into files (account_id, filename, original_name, object_key, short_code, size, sha256, mime_type, source,
                         url_format, deletion_token_hash, created_at)
      select a.id, 'f' || g || '.png', 'holiday-' || g || '.png', 'objects/bench-' || g, 'm' || lpad(g::text, 6, '0'),
             1000 + (g * 7919) % 5000000, md5(g::text) || md5(g::text), 'image/png', 'api', 'subdomain', md5(g::text),
             now() - (g || ' seconds')::interval
      from accounts a, generate_series(1, ${FILES}) g where a.username = 'bench'`);
    await database.db.execute(sql`update accounts set file_count = ${FILES} where username = 'bench'`);
    await database.db.execute(sql`analyze files`);
    await database.close();

    const mcpUrl = `${service.url}/mcp`;
    const token = await accessToken(service.url, 'bench', 'bench-pass-123');
    const keys = Array.from({ length: CALLERS }, () => service.apiKey);
    const stateless = await Promise.all(keys.map(() => mcpClient(mcpUrl, token, '2026-07-28')));
    const sessions = await Promise.all(keys.map(() => mcpClient(mcpUrl, token, '2025-06-18')));
    const rest = (query: string) => async (key: string) => {
      const res = await fetch(`${service.url}/api/user/dashboard?${query}`, { headers: { 'x-api-key': key } });
      if (res.status !== 200) throw new Error(`dashboard answered ${res.status}`);
      await res.arrayBuffer();
    };
    const listFiles = (client: Client) => client.callTool({ name: 'list_files', arguments: { limit: PAGE } });
    const getFile = (client: Client) => client.callTool({ name: 'get_file', arguments: { filename: 'f7.png' } });

    const rounds = { rest: [] as number[], list: [] as number[], listSession: [] as number[], restOne: [] as number[], get: [] as number[] };
    // Warm-up: every path once at full concurrency, unmeasured.
    await p50Of(keys, rest(`limit=${PAGE}`));
    await p50Of(stateless, listFiles);
    await p50Of(sessions, listFiles);
    await p50Of(stateless, getFile);
    for (let round = 0; round < ROUNDS; round++) {
      rounds.rest.push(await p50Of(keys, rest(`limit=${PAGE}`)));
      rounds.list.push(await p50Of(stateless, listFiles));
      rounds.listSession.push(await p50Of(sessions, listFiles));
      rounds.restOne.push(await p50Of(keys, rest('limit=1&search=f7.png')));
      rounds.get.push(await p50Of(stateless, getFile));
    }
    await Promise.all([...stateless, ...sessions].map((client) => client.close()));
    const ratio = (a: number[], b: number[]) => median(a.map((value, i) => value / b[i]!));
    process.stdout.write(`\nMCP rounds (p50 ms): ${Object.entries(rounds).map(([name, values]) => `${name} ${values.map((v) => v.toFixed(1)).join(' ')}`).join(' | ')}\n`);
    return {
      title: `MCP over /mcp against REST, ${FILES} files, ${CALLERS} callers (service on ${service.database})`,
      rows: [
        { name: `REST dashboard (${PAGE} files), p50`, value: median(rounds.rest), unit: 'ms' },
        { name: `list_files (${PAGE} files), 2026-07-28 session-less, p50`, value: median(rounds.list), unit: 'ms' },
        { name: 'list_files / REST dashboard (p50)', value: ratio(rounds.list, rounds.rest), unit: 'ratio', target: ['<=', 1.5] },
        { name: 'REST dashboard (search, 1 file), p50', value: median(rounds.restOne), unit: 'ms' },
        { name: 'get_file, p50', value: median(rounds.get), unit: 'ms' },
        { name: 'get_file / REST dashboard search (p50)', value: ratio(rounds.get, rounds.restOne), unit: 'ratio', target: ['<=', 1.5] },
        { name: 'list_files in a 2025-06-18 session, p50', value: median(rounds.listSession), unit: 'ms' },
        { name: 'session-less / in a session (p50)', value: ratio(rounds.list, rounds.listSession), unit: 'ratio', target: ['<=', 1.1] },
      ],
    };
  } finally {
    await service.stop();
  }
}
