import { request } from 'node:http';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../shared/db/open-database.js';
import { SseParser } from '../lib/sse-parser.js';
import { percentile } from './lib/load.js';
import { runScript, startService } from './lib/processes.js';
import type { BenchRow } from './report.js';

const ACCOUNTS = 10_000;
const STREAMS = 1_000;

/** Opens an SSE stream and calls `onNotification` with the arrival time of each notification event. */
function openStream(url: string, key: string, onNotification: (title: string, at: number) => void): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { 'x-api-key': key, accept: 'text/event-stream' } }, (res) => {
      const parser = new SseParser();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        for (const event of parser.feed(chunk).events) {
          if (event.event === 'notification') onNotification(JSON.parse(event.data!).title, performance.now());
          if (event.event === 'unread') resolve(() => req.destroy());
        }
      });
    });
    req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
    req.end();
  });
}

/** A broadcast to 10k accounts (rows written, seconds) and its delivery to 1k open streams. */
export async function run(): Promise<{ title: string; rows: BenchRow[] }> {
  const service = await startService({ SSE_HEARTBEAT_MS: '25000' });
  try {
    const database = await openDatabase({ databaseUrl: service.env.DATABASE_URL, dataDir: service.env.DATA_DIR! });
    // Accounts are seeded directly: creating 10k through the API would measure password hashing.
    await database.db.execute(sql`
      insert into accounts (username, api_key_hash, api_key_sealed)
      select 'acct' || g, md5('key' || g), 'unused' from generate_series(2, ${ACCOUNTS}) g`);

    // 1k streams of the bench account; the first notification's arrival on each is timed.
    const arrivals: number[] = [];
    const closers = [];
    for (let i = 0; i < STREAMS; i++) {
      closers.push(await openStream(`${service.url}/api/user/notifications/stream`, service.apiKey, (_t, at) => arrivals.push(at)));
    }
    await runScript('scripts/admin.ts', ['notify', '--user', 'bench', '--type', 'bench', '--title', 'ping', '--message', 'to 1k streams'], service.env);
    const deadline = Date.now() + 30_000;
    while (arrivals.length < STREAMS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    // Latency is measured from the row's creation, not from the CLI process start.
    const created = Number(
      ((await database.db.execute(sql`select extract(epoch from max(created_at)) * 1000 as t from notifications where type = 'bench'`)) as unknown as { rows: { t: string }[] }).rows[0]!.t,
    );
    const offset = Date.now() - performance.now();
    const latencies = arrivals.map((at) => at + offset - created);
    for (const close of closers) close();

    // Broadcast: written by the notify job; timed from the job's start to its last row.
    const started = Date.now();
    const out = await runScript('scripts/admin.ts', ['notify', '--all', '--type', 'news', '--title', 'all', '--message', 'to everyone'], service.env);
    const { broadcastId } = JSON.parse(out);
    let rows = 0;
    while (rows < ACCOUNTS && Date.now() - started < 120_000) {
      await new Promise((r) => setTimeout(r, 100));
      rows = Number(
        ((await database.db.execute(sql`select count(*)::int as n from notifications where broadcast_id = ${broadcastId}::uuid`)) as unknown as { rows: { n: number }[] }).rows[0]!.n,
      );
    }
    const seconds = (Date.now() - started) / 1000;
    await database.close();
    return {
      title: `Notifications (service on ${service.database})`,
      rows: [
        { name: `broadcast to ${ACCOUNTS} accounts: rows written`, value: rows, unit: 'rows' },
        { name: `broadcast to ${ACCOUNTS} accounts: seconds (incl. CLI start)`, value: seconds, unit: 's', target: ['<=', 10] },
        { name: `delivery to ${STREAMS} open streams: received`, value: arrivals.length, unit: '' },
        { name: `delivery to ${STREAMS} open streams: p50 latency`, value: percentile(latencies, 50) / 1000, unit: 's' },
        { name: `delivery to ${STREAMS} open streams: p95 latency`, value: percentile(latencies, 95) / 1000, unit: 's', target: ['<=', 2] },
      ],
    };
  } finally {
    await service.stop();
  }
}
