import { connect, type Socket } from 'node:net';
import { readFile } from 'node:fs/promises';
import type { Job } from 'bullmq';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../shared/db/open-database.js';
import { JobQueues } from '../../shared/jobs.js';
import { createRedis } from '../../shared/redis.js';
import { percentile } from './lib/load.js';
import { runScript, startService, startWebProcess } from './lib/processes.js';
import { cpuMs, currentRss } from './lib/proc-stats.js';
import type { BenchRow } from './report.js';

// Scale knobs for quick runs; the figures are 10k accounts, each with one open stream.
const ACCOUNTS = Number(process.env.BENCH_NOTIFY_ACCOUNTS ?? 10_000);
const STREAMS = Math.min(Number(process.env.BENCH_SSE_STREAMS ?? 10_000), ACCOUNTS);
// Streams opened at once: what a reconnect storm after a deploy looks like, without a SYN backlog overflow.
const OPENING = 100;
// Opened before the memory baseline is read: the first streams load code, not per-stream state.
const WARM_STREAMS = Math.min(100, STREAMS);
// RSS right after a burst holds its garbage too; V8 collects it and gives pages back once allocation
// has been quiet for a while (about 25 s here), so each RSS reading waits that long first.
const SETTLE_MS = Number(process.env.BENCH_SSE_SETTLE_MS ?? 30_000);
const settled = (pid: number) => new Promise((r) => setTimeout(r, SETTLE_MS)).then(() => currentRss(pid));

// Seeded accounts' API keys: this prefix and the account's number.
const KEY_PREFIX = 'hfs_ssebench';

/**
 * One SSE stream on a raw socket: ten thousand of these must be cheap for the bench process, which
 * shares the cores with the server. It only watches for event names (no SSE or chunked parsing):
 * resolves once the stream's first `unread` event came (the stream is live), then calls
 * `onNotification` at the first `notification` event.
 */
function openStream(port: number, key: string, onNotification: () => void): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.setEncoding('latin1');
    const request = `GET /api/user/notifications/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: ${key}\r\nAccept: text/event-stream\r\n\r\n`;
    socket.once('connect', () => socket.write(request));
    let state: 'head' | 'opening' | 'live' | 'notified' = 'head';
    // The end of the previous chunk, so an event name split across two chunks is still seen.
    let tail = '';
    socket.on('data', (chunk: string) => {
      if (state === 'head' && !chunk.startsWith('HTTP/1.1 200')) {
        socket.destroy();
        return reject(new Error(`stream refused: ${chunk.split('\r\n')[0]}`));
      }
      const text = tail + chunk;
      if (state !== 'live' && state !== 'notified' && text.includes('event: unread')) {
        state = 'live';
        resolve(socket);
      } else if (state === 'live' && text.includes('event: notification')) {
        state = 'notified';
        onNotification();
      } else if (state === 'head') state = 'opening';
      tail = text.slice(-18);
    });
    socket.once('error', reject);
    socket.once('close', () => reject(new Error('stream closed before it was live')));
  });
}

async function openFileLimit(pid: number): Promise<number> {
  const line = (await readFile(`/proc/${pid}/limits`, 'utf8')).split('\n').find((l) => l.startsWith('Max open files'));
  return Number(line?.split(/\s{2,}/)[1] ?? 0);
}

/**
 * A broadcast to every account while each of STREAMS accounts holds one open stream on a `web`
 * process of its own: rows written and the job's seconds; delivery p50/p95 from the notify call
 * (the job's creation) to each stream's event; and the web process's memory per open stream.
 */
export async function run(): Promise<{ title: string; rows: BenchRow[] }> {
  const service = await startService({ SSE_HEARTBEAT_MS: '25000' });
  const sockets: Socket[] = [];
  const database = await openDatabase({ databaseUrl: service.env.DATABASE_URL, dataDir: service.env.DATA_DIR! });
  try {
    // Accounts are seeded directly: creating 10k through the API would measure password hashing.
    // Their keys are known here (hashed as the service hashes keys), so each can open its stream.
    await database.db.execute(sql`
      insert into accounts (username, api_key_hash, api_key_sealed)
      select 'acct' || g, encode(sha256(convert_to(${KEY_PREFIX} || g, 'UTF8')), 'hex'), 'unused'
      from generate_series(1, ${ACCOUNTS - 1}) g`);

    // The streams go to a `web` process of their own, so its memory is the streams' alone.
    const web = await startWebProcess(service);
    for (const [who, pid] of [['the web process', web.pid], ['this process', process.pid]] as const) {
      const limit = await openFileLimit(pid);
      if (limit < STREAMS + 1000) throw new Error(`${who} may open ${limit} files, too few for ${STREAMS} streams: raise ulimit -n`);
    }
    const port = Number(new URL(web.url).port);

    const keyOf = (n: number) => (n === 0 ? service.apiKey : `${KEY_PREFIX}${n}`);
    const usernameOf = (n: number) => (n === 0 ? 'bench' : `acct${n}`);
    const arrivals = new Map<string, number>();
    let next = 0;
    const openFrom = async (last: number) => {
      while (next < last) {
        const n = next++;
        sockets.push(await openStream(port, keyOf(n), () => arrivals.set(usernameOf(n), Date.now())));
      }
    };
    const openUpTo = (last: number) => Promise.all(Array.from({ length: OPENING }, () => openFrom(last)));
    await openUpTo(WARM_STREAMS);
    const rssBefore = await settled(web.pid);
    const [openStarted, openCpuBefore] = [performance.now(), await cpuMs(web.pid)];
    await openUpTo(STREAMS);
    const [openSeconds, openCpuMs] = [(performance.now() - openStarted) / 1000, (await cpuMs(web.pid)) - openCpuBefore];
    const [rssRightAfter, rssAfter] = [await currentRss(web.pid), await settled(web.pid)];
    const deliveryCpuBefore = await cpuMs(web.pid);

    const { broadcastId } = JSON.parse(
      await runScript('scripts/admin.ts', ['notify', '--all', '--type', 'news', '--title', 'all', '--message', 'to everyone'], service.env),
    ) as { broadcastId: string };
    const deadline = Date.now() + 120_000;
    while (arrivals.size < STREAMS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const deliveryCpuMs = (await cpuMs(web.pid)) - deliveryCpuBefore;

    // Timed from the notify call: the job's creation, when the service's broadcast() queued it.
    const redis = createRedis(service.env.REDIS_URL!);
    const jobs = new JobQueues(redis, service.env.REDIS_PREFIX ?? 'hfs');
    let job: Job | undefined;
    try {
      await redis.connect();
      const waitUntil = Date.now() + 120_000;
      while (!(job = await jobs.queue('notify').getJob(`broadcast-${broadcastId}`))?.finishedOn && Date.now() < waitUntil) {
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await jobs.close();
      redis.disconnect();
    }
    if (!job?.finishedOn) throw new Error(`broadcast ${broadcastId} did not finish`);
    const { timestamp: queuedAt, processedOn, finishedOn } = job;
    const latencies = [...arrivals.values()].map((at) => at - queuedAt);
    // Also from each row's write (its batch's insert): what the streams add to the broadcast's own pace.
    const written = new Map(
      ((await database.db.execute(sql`
        select a.username, (extract(epoch from n.created_at) * 1000)::float8 as t
        from notifications n join accounts a on a.id = n.account_id where n.broadcast_id = ${broadcastId}::uuid`)) as unknown as { rows: { username: string; t: number }[] }).rows.map((r) => [r.username, r.t]),
    );
    const afterWrite = [...arrivals].map(([username, at]) => at - written.get(username)!);

    for (const socket of sockets.splice(0)) socket.destroy();
    await web.stop();
    return {
      title: `Notifications (service on ${service.database}; streams on one web process)`,
      rows: [
        { name: `broadcast to ${ACCOUNTS} accounts: rows written`, value: written.size, unit: 'rows', target: ['>=', ACCOUNTS] },
        { name: `broadcast to ${ACCOUNTS} accounts: seconds queued before a worker took it`, value: (processedOn! - queuedAt) / 1000, unit: 's' },
        { name: `broadcast to ${ACCOUNTS} accounts: seconds (queued to done)`, value: (finishedOn - queuedAt) / 1000, unit: 's', target: ['<=', 10] },
        { name: `${STREAMS} streams opened: per second`, value: (STREAMS - WARM_STREAMS) / openSeconds, unit: '/s' },
        { name: `${STREAMS} streams opened: web CPU per stream`, value: openCpuMs / (STREAMS - WARM_STREAMS), unit: 'ms' },
        { name: `${STREAMS} open streams: web RSS per stream, right after opening`, value: (rssRightAfter - rssBefore) / (STREAMS - WARM_STREAMS) / 1024, unit: 'KiB' },
        { name: `${STREAMS} open streams: web RSS per stream, settled`, value: (rssAfter - rssBefore) / (STREAMS - WARM_STREAMS) / 1024, unit: 'KiB' },
        { name: `${STREAMS} open streams: web RSS with all open`, value: rssAfter / 2 ** 20, unit: 'MiB' },
        { name: `delivery to ${STREAMS} open streams: received`, value: arrivals.size, unit: '', target: ['>=', STREAMS] },
        { name: `delivery to ${STREAMS} open streams: web CPU per event`, value: deliveryCpuMs / Math.max(arrivals.size, 1), unit: 'ms' },
        { name: `delivery to ${STREAMS} open streams: p5 from the notify call`, value: percentile(latencies, 5) / 1000, unit: 's' },
        { name: `delivery to ${STREAMS} open streams: p50 from the notify call`, value: percentile(latencies, 50) / 1000, unit: 's' },
        { name: `delivery to ${STREAMS} open streams: p95 from the notify call`, value: percentile(latencies, 95) / 1000, unit: 's', target: ['<=', 2] },
        { name: `delivery to ${STREAMS} open streams: p95 from its row's write`, value: percentile(afterWrite, 95) / 1000, unit: 's' },
      ],
    };
  } finally {
    for (const socket of sockets) socket.destroy();
    await database.close();
    await service.stop();
  }
}
