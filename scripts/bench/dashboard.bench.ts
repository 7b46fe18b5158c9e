import { sql } from 'drizzle-orm';
import { openDatabase } from '../../shared/db/open-database.js';
import { percentile } from './lib/load.js';
import { startService } from './lib/processes.js';
import type { BenchRow } from './report.js';

const FILES = 100_000;
const REQUESTS = 300;

/** Server time (the service's own Server-Timing) of GET /api/user/dashboard for one query string. */
async function serverTimes(base: string, key: string, query: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const res = await fetch(`${base}/api/user/dashboard?${query}`, { headers: { 'x-api-key': key } });
    if (res.status !== 200) throw new Error(`dashboard answered ${res.status}`);
    await res.arrayBuffer();
    times.push(Number(/dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '')?.[1]));
  }
  return times;
}

/** The dashboard of one account holding 100k files: a page with search and sort against a plain page. */
export async function run(): Promise<{ title: string; rows: BenchRow[] }> {
  const service = await startService();
  try {
    const database = await openDatabase({ databaseUrl: service.env.DATABASE_URL, dataDir: service.env.DATA_DIR! });
    // Seeded in the database directly: 100k uploads through the API would measure the uploads.
    await database.db.execute(sql`
      insert into files (account_id, filename, original_name, object_key, short_code, size, mime_type, source,
                         url_format, deletion_token_hash, created_at)
      select a.id, 'f' || g || '.png', (array['holiday','beach','cat','invoice','screenshot'])[1 + g % 5] || '-' || g || '.png',
             'objects/bench-' || g, 'b' || lpad(g::text, 6, '0'), 1000 + (g * 7919) % 5000000, 'image/png', 'api',
             'subdomain', md5(g::text), now() - (g || ' seconds')::interval
      from accounts a, generate_series(1, ${FILES}) g where a.username = 'bench'`);
    // What recording each upload would have kept on the account row.
    await database.db.execute(sql`update accounts set file_count = ${FILES} where username = 'bench'`);
    await database.db.execute(sql`analyze files`);
    await database.close();

    const plain = await serverTimes(service.url, service.apiKey, 'page=1&limit=10');
    const searched = await serverTimes(service.url, service.apiKey, 'page=3&limit=10&search=beach-1&sortBy=size&sortOrder=asc');
    const p95 = percentile(searched, 95);
    return {
      title: `Dashboard, ${FILES} files in one account (service on ${service.database})`,
      rows: [
        { name: 'newest page, p95 server time', value: percentile(plain, 95), unit: 'ms' },
        { name: 'search + sort by size, p50 server time', value: percentile(searched, 50), unit: 'ms' },
        { name: 'search + sort by size, p95 server time', value: p95, unit: 'ms', target: ['<=', 25] },
        { name: 'search + sort / newest page (p95)', value: p95 / percentile(plain, 95), unit: 'ratio' },
      ],
    };
  } finally {
    await service.stop();
  }
}
