import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { JOBS, JobQueues, jobIds } from '../../shared/jobs.js';
import { createRedis } from '../../shared/redis.js';
import { expiryTimerDelay } from '../../shared/services/uploads/expiry.js';
import { startService, startWebProcess, startWorkerProcess } from './lib/processes.js';
import type { BenchRow } from './report.js';

const FILES = Number(process.env.BENCH_EXPIRY_FILES ?? 100_000);
// The files belong to this many accounts (each account's counters must come back to zero).
const ACCOUNTS = Math.min(1000, FILES);
// Every file comes due within this one window, evenly spread.
const WINDOW_MS = 60_000;
// From the choice of the first due time to it: the rows and their delayed jobs must be in place by then.
const LEAD_MS = Number(process.env.BENCH_EXPIRY_LEAD_S ?? 40) * 1000;
// How long after the last due time the bench waits for everything to be gone before it reports a miss.
const TIMEOUT_MS = Number(process.env.BENCH_EXPIRY_TIMEOUT_S ?? 240) * 1000;
const SAMPLES = Math.min(300, FILES);
const BODY = Buffer.from('bench object '.repeat(8));

interface Sample {
  url: string;
  due: number;
  before?: number;
  after?: number;
}

/**
 * 100k files due in the same minute, on the Procfile topology (a `web` and a `worker` process on
 * PostgreSQL and Redis): how long after their due time the rows and the stored objects are gone,
 * and whether each sampled file answers 404 from its due time (and 200 just before).
 */
export async function run(): Promise<{ title: string; rows: BenchRow[] }> {
  const service = await startService();
  const prefix = `expiry${randomBytes(3).toString('hex')}`;
  const redis = createRedis(service.env.REDIS_URL!);
  const db = new pg.Client({ connectionString: service.env.DATABASE_URL });
  try {
    if (!service.env.DATABASE_URL) throw new Error('the expiry bench needs PostgreSQL (BENCH_DATABASE_URL or the local server)');
    await Promise.all([redis.connect(), db.connect()]);
    // `npm start`'s own workers share the database: paused, so only the worker under test expires files.
    const own = new JobQueues(redis, service.env.REDIS_PREFIX ?? 'hfs');
    await Promise.all([own.queue('expiry').pause(), own.queue('objects').pause()]);
    await own.close();

    // Seeded directly, as the uploads would have left them: objects on disk, accounts, rows, delayed jobs.
    const objectsDir = path.join(service.env.DATA_DIR!, 'files', 'objects');
    await mkdir(objectsDir, { recursive: true });
    const keys = Array.from({ length: FILES }, () => `objects/${randomUUID()}`);
    const seedStarted = performance.now();
    for (let i = 0; i < FILES; i += 256) {
      await Promise.all(keys.slice(i, i + 256).map((key) => writeFile(path.join(service.env.DATA_DIR!, 'files', key), BODY)));
    }
    const objectsSeconds = (performance.now() - seedStarted) / 1000;
    await db.query(
      `insert into accounts (username, api_key_hash, api_key_sealed, plan)
       select 'exp' || g, md5('exp' || g), 'unused', 'pro' from generate_series(1, $1::int) g`,
      [ACCOUNTS],
    );

    const web = await startWebProcess(service, { REDIS_PREFIX: prefix });
    const worker = await startWorkerProcess(service, { REDIS_PREFIX: prefix });
    try {
      const first = Date.now() + LEAD_MS;
      const last = first + WINDOW_MS;
      // File g (0-based) is due at first + g/FILES of the window and belongs to account exp{1 + g % ACCOUNTS}.
      const { rows: inserted } = await db.query<{ id: string; filename: string }>(
        `insert into files (account_id, filename, original_name, object_key, short_code, size, mime_type, source, url_format,
                            deletion_token_hash, expires_at, expiry, moderation_verdict, moderated_at)
         select a.id, 'e' || k.g || '.png', 'e' || k.g || '.png', k.key, 'x' || lpad(k.g::text, 6, '0'), $2::int, 'image/png', 'api',
                'standard', md5(k.key), to_timestamp(($3::bigint + k.g::bigint * $4::int / $5::int) / 1000.0), '1h', 'allow', now()
         from (select key, (n - 1)::int as g from unnest($1::text[]) with ordinality as u(key, n)) k
         join accounts a on a.username = 'exp' || (1 + k.g % $6::int)
         returning id, filename`,
        [keys, BODY.length, first, WINDOW_MS, FILES, ACCOUNTS],
      );
      const files = inserted.map(({ id, filename }) => {
        const g = Number(/^e(\d+)\.png$/.exec(filename)![1]);
        return { id, filename, username: `exp${1 + (g % ACCOUNTS)}`, due: first + Math.floor((g * WINDOW_MS) / FILES) };
      });
      await db.query(
        `update accounts a set storage_used = s.bytes, file_count = s.n
         from (select account_id, sum(size)::bigint as bytes, count(*)::int as n from files group by account_id) s
         where s.account_id = a.id`,
      );
      await db.query('analyze files');
      // Each upload queued its own expiry timer (UploadService.scheduleExpiry).
      const jobs = new JobQueues(redis, prefix);
      const expiryQueue = jobs.queue('expiry');
      for (let i = 0; i < files.length; i += 1000) {
        const now = Date.now();
        await expiryQueue.addBulk(
          files.slice(i, i + 1000).map((f) => ({
            name: 'file.expire',
            data: { fileId: f.id },
            opts: { ...JOBS['file.expire'].options, delay: expiryTimerDelay(new Date(f.due), now), jobId: jobIds.fileExpire(f.id) },
          })),
        );
      }
      await jobs.close();
      const spare = first - Date.now();
      if (spare < 0) throw new Error(`seeding ended ${-spare} ms after the first due time: raise BENCH_EXPIRY_LEAD_S`);

      // Samples spread over the window: each asked for 2 s before its due time and again at it.
      const samples: Sample[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const f = files[Math.floor((i * files.length) / SAMPLES)]!;
        samples.push({ url: `${web.url}/u/${f.username}/${f.filename}`, due: f.due });
      }
      const status = (url: string) => fetch(url).then(async (res) => (await res.arrayBuffer(), res.status));
      const at = (time: number, fn: () => Promise<void>) => new Promise<void>((resolve, reject) => setTimeout(() => fn().then(resolve, reject), Math.max(0, time - Date.now())));
      const probes = Promise.all(
        samples.flatMap((s) => [at(s.due - 2000, async () => void (s.before = await status(s.url))), at(s.due + 1, async () => void (s.after = await status(s.url)))]),
      );

      // Rows polled often (the worst lag behind a due time), the objects directory less so (a listing costs).
      let worstLagMs = 0;
      let rowsGoneAt: number | undefined;
      let objectsGoneAt: number | undefined;
      let rowsLeft = FILES;
      let objectsLeft = FILES;
      let lastObjectCount = 0;
      const deadline = last + TIMEOUT_MS;
      while ((rowsGoneAt === undefined || objectsGoneAt === undefined) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        const now = Date.now();
        if (rowsGoneAt === undefined) {
          const { rows } = await db.query<{ n: number; oldest: string | null }>(
            `select count(*)::int as n, (extract(epoch from min(expires_at)) * 1000)::bigint::text as oldest from files where expires_at is not null`,
          );
          rowsLeft = rows[0]!.n;
          if (rows[0]!.oldest !== null) worstLagMs = Math.max(worstLagMs, now - Number(rows[0]!.oldest));
          if (rowsLeft === 0) rowsGoneAt = now;
        }
        if (now >= first && (now - lastObjectCount >= 2000 || rowsGoneAt !== undefined)) {
          lastObjectCount = now;
          objectsLeft = (await readdir(objectsDir)).length;
          if (objectsLeft === 0) objectsGoneAt = Date.now();
        }
      }
      await probes;
      const { rows: counters } = await db.query<{ bytes: string; n: number }>(
        `select coalesce(sum(storage_used), 0)::text as bytes, coalesce(sum(file_count), 0)::int as n from accounts where username like 'exp%'`,
      );
      const timedOut = (goneAt: number | undefined) => (goneAt ?? deadline) - last;
      return {
        title: `Expiry, ${FILES} files due within one minute (web + worker processes, service on ${service.database})`,
        rows: [
          { name: 'seeding: objects written', value: objectsSeconds, unit: 's' },
          { name: 'seeding: ready before the first due time', value: spare / 1000, unit: 's' },
          { name: 'rows left at the end', value: rowsLeft, unit: 'rows', target: ['<=', 0] },
          { name: 'objects left at the end', value: objectsLeft, unit: '', target: ['<=', 0] },
          { name: 'rows gone, after the last due time', value: timedOut(rowsGoneAt) / 1000, unit: 's', target: ['<=', 60] },
          { name: 'objects gone, after the last due time', value: timedOut(objectsGoneAt) / 1000, unit: 's', target: ['<=', 60] },
          { name: 'worst row lag behind its due time', value: worstLagMs / 1000, unit: 's', target: ['<=', 60] },
          { name: `sampled files served (200) 2 s before due, of ${SAMPLES}`, value: samples.filter((s) => s.before === 200).length, unit: '', target: ['>=', SAMPLES] },
          { name: `sampled files 404 from their due time, of ${SAMPLES}`, value: samples.filter((s) => s.after === 404).length, unit: '', target: ['>=', SAMPLES] },
          { name: 'storage counters left on the accounts (bytes + files)', value: Number(counters[0]!.bytes) + counters[0]!.n, unit: '', target: ['<=', 0] },
        ],
      };
    } finally {
      await worker.stop();
      await web.stop();
    }
  } finally {
    await db.end().catch(() => undefined);
    redis.disconnect();
    await service.stop();
  }
}
