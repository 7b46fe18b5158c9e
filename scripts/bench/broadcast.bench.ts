import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { createRedis } from '../../shared/redis.js';
import type { NotificationMessage } from '../../shared/services/notifications/notification.service.js';
import { startService, startWebProcess, startWorkerProcess } from './lib/processes.js';
import type { BenchRow } from './report.js';

const ACCOUNTS = Number(process.env.BENCH_BROADCAST_ACCOUNTS ?? 100_000);
const TIMEOUT_MS = Number(process.env.BENCH_BROADCAST_TIMEOUT_S ?? 180) * 1000;

/** The admin CLI as `npm run admin` runs it once built (the service's start built dist/). */
async function admin(args: string[], env: Record<string, string>): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['dist/scripts/admin.js', ...args], { env: { ...process.env, ...env } });
  return stdout;
}

/**
 * `notify --all` to 100k accounts on the Procfile topology (the admin CLI queues it, a `worker`
 * process writes it, a `web` process listens): seconds from the command until every account has its
 * row, and until every account's event is published with its unread count right.
 */
export async function run(): Promise<{ title: string; rows: BenchRow[] }> {
  const service = await startService();
  const prefix = `broadcast${randomBytes(3).toString('hex')}`;
  const env = { ...service.env, REDIS_PREFIX: prefix };
  const db = new pg.Client({ connectionString: service.env.DATABASE_URL });
  const subscriber = createRedis(service.env.REDIS_URL!);
  try {
    if (!service.env.DATABASE_URL) throw new Error('the broadcast bench needs PostgreSQL (BENCH_DATABASE_URL or the local server)');
    await Promise.all([db.connect(), subscriber.connect()]);
    // Accounts seeded directly (creating them through the API would measure password hashing); every
    // tenth has two unread notifications and a read one, so unread counts differ between accounts.
    await db.query(
      `insert into accounts (username, api_key_hash, api_key_sealed)
       select 'acct' || g, md5('key' || g), 'unused' from generate_series(2, $1::int) g`,
      [ACCOUNTS],
    );
    await db.query(
      `insert into notifications (account_id, type, title, message, read)
       select a.id, 'earlier', 'earlier', 'earlier', r.read
       from accounts a cross join (values (false), (false), (true)) r(read)
       where a.username like 'acct%' and substring(a.username from 5)::int % 10 = 0`,
    );
    await db.query('analyze accounts; analyze notifications');
    const { rows: before } = await db.query<{ id: string; unread: number }>(
      `select a.id, count(n.id) filter (where not n.read)::int as unread from accounts a left join notifications n on n.account_id = a.id group by a.id`,
    );
    const expected = new Map(before.map((row) => [row.id, row.unread + 1]));

    const web = await startWebProcess(service, { REDIS_PREFIX: prefix });
    const worker = await startWorkerProcess(service, { REDIS_PREFIX: prefix });
    try {
      // Every published event of the broadcast, by account: its unread count.
      const published = new Map<string, number>();
      let lastEventAt = 0;
      await subscriber.subscribe(`${prefix}:notifications`);
      subscriber.on('message', (_channel: string, message: string) => {
        const parsed = JSON.parse(message) as NotificationMessage;
        if (parsed.kind !== 'broadcast' || parsed.shared.type !== 'bench-broadcast') return;
        for (const [accountId, , , unreadCount] of parsed.recipients) published.set(accountId, unreadCount);
        lastEventAt = performance.now();
      });

      const started = performance.now();
      const out = await admin(['notify', '--all', '--type', 'bench-broadcast', '--title', 'to all', '--message', 'to everyone'], env);
      const queuedSeconds = (performance.now() - started) / 1000;
      const { broadcastId } = JSON.parse(out) as { broadcastId: string };
      let rows = 0;
      let rowsSeconds = Infinity;
      while (performance.now() - started < TIMEOUT_MS) {
        await new Promise((r) => setTimeout(r, 100));
        if (rows < ACCOUNTS) {
          const { rows: counted } = await db.query<{ n: number }>(`select count(*)::int as n from notifications where broadcast_id = $1`, [broadcastId]);
          rows = counted[0]!.n;
          if (rows >= ACCOUNTS) rowsSeconds = (performance.now() - started) / 1000;
        }
        if (rows >= ACCOUNTS && published.size >= ACCOUNTS) break;
      }
      // Events published after the last row are still on their way for a moment.
      await new Promise((r) => setTimeout(r, 500));
      const publishedSeconds = published.size >= ACCOUNTS ? (lastEventAt - started) / 1000 : Infinity;

      const { rows: after } = await db.query<{ id: string; unread: number }>(
        `select account_id as id, count(*)::int as unread from notifications where not read group by account_id`,
      );
      const stored = new Map(after.map((row) => [row.id, row.unread]));
      let wrongStored = 0;
      let wrongPublished = 0;
      for (const [id, unread] of expected) {
        if (stored.get(id) !== unread) wrongStored += 1;
        if (published.get(id) !== unread) wrongPublished += 1;
      }
      const benchId = (await db.query<{ id: string }>(`select id from accounts where username = 'bench'`)).rows[0]!.id;
      const listed = (await (await fetch(`${web.url}/api/user/notifications`, { headers: { 'x-api-key': service.apiKey } })).json()) as { data: { unreadCount: number } };
      return {
        title: `Broadcast to ${ACCOUNTS} accounts (web + worker processes, service on ${service.database})`,
        rows: [
          { name: 'admin CLI: seconds until queued (its start included)', value: queuedSeconds, unit: 's' },
          { name: 'rows written', value: rows, unit: 'rows', target: ['>=', ACCOUNTS] },
          { name: 'every account has its row, s from the command', value: rowsSeconds, unit: 's', target: ['<=', 30] },
          { name: 'of which the worker’s writing, s from queued', value: rowsSeconds - queuedSeconds, unit: 's' },
          { name: 'every account’s event published, s from the command', value: publishedSeconds, unit: 's' },
          { name: 'accounts whose stored unread count is wrong', value: wrongStored, unit: '', target: ['<=', 0] },
          { name: 'accounts whose published unread count is wrong or missing', value: wrongPublished, unit: '', target: ['<=', 0] },
          { name: 'bench account’s unreadCount through the API, off by', value: Math.abs(listed.data.unreadCount - expected.get(benchId)!), unit: '', target: ['<=', 0] },
        ],
      };
    } finally {
      await worker.stop();
      await web.stop();
    }
  } finally {
    subscriber.disconnect();
    await db.end().catch(() => undefined);
    await service.stop();
  }
}
