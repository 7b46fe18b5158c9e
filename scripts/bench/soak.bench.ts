import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import type { Client } from '@modelcontextprotocol/client';
import pg from 'pg';
import { JobQueues } from '../../shared/jobs.js';
import { createRedis } from '../../shared/redis.js';
import { hashPassword } from '../../shared/services/accounts/password.js';
import { WebhookReceiver } from '../../test/helpers/webhook-receiver.js';
import { onCleanup } from './lib/cleanup.js';
import { percentile, realJpeg } from './lib/load.js';
import { accessToken, mcpClient } from './lib/mcp-session.js';
import { deletes, expiries, moves, polls, renames, shareLinks } from './lib/soak/changes.js';
import { type Check, correctnessChecks, errorLines, p99Targets, passed, performanceChecks } from './lib/soak/checks.js';
import { SoakClient, type UploadResult } from './lib/soak/client.js';
import { every, sleep, type SoakContext } from './lib/soak/context.js';
import { SignatureCheck } from './lib/soak/hooks.js';
import { Ledger, type SoakAccount } from './lib/soak/ledger.js';
import { soakPng, soakSvg } from './lib/soak/plot.js';
import { coldServing, dashboard, hotServing, renditions } from './lib/soak/reads.js';
import { CSV_HEADER, csvLine, Recorder } from './lib/soak/recorder.js';
import { NotificationStreams } from './lib/soak/streams.js';
import { rssOf, startTopology, type Topology } from './lib/soak/topology.js';
import { ImageOrigin, mcpUploads, multipartUploads, tusUploads, uniqueJpeg, urlUploads } from './lib/soak/uploads.js';
import { type BenchRow, printRows } from './report.js';

const DEFAULT_MINUTES = 30;
const MAX_MINUTES = 240;
const ACCOUNTS = 8;
const STREAMS = 200;
const HOT_FILES = 8;
/** Each web process's hot-file cache (the default, stated: the plot shows it fill). */
const FILE_CACHE_BYTES = 64 * 1024 * 1024;
const PASSWORD = 'soak-pass-1234';
/**
 * How often each process gets a full collection before its RSS is taken: often enough for a slope
 * over the warm run, seldom enough that its pause (one process at a time; it added 35–70 ms to the
 * slowest answer of a web process's 10 s window) does not become the p99 of the rarer routes.
 */
const COLLECT_EVERY_MS = 120_000;
/**
 * A web process's memory by its /metrics: V8's heap in use and committed, memory outside that heap
 * (Buffers, the hot-file cache among them) and the cache itself. RSS growing while these stay flat is native.
 */
const WEB_MEMORY_SERIES = [
  ['nodejs_heap_size_used_bytes', 'heap'],
  ['nodejs_heap_size_total_bytes', 'committed'],
  ['nodejs_external_memory_bytes', 'external'],
  ['hfs_file_body_cache_bytes', 'cache'],
] as const;
/** The routes the plot shows (the CSV has every one). */
const PLOTTED_ROUTES = ['serve-hot', 'serve-cold', 'rendition', 'upload-multipart', 'upload-tus', 'upload-mcp', 'dashboard', 'dashboard-search', 'rename', 'share-link-view', 'poll-vote', 'sse-delivery'];

function minutesOf(option: string | undefined): number {
  const minutes = option === undefined ? DEFAULT_MINUTES : Number(option);
  if (!(minutes > 0 && minutes <= MAX_MINUTES)) throw new Error(`--minutes takes a number above 0 and at most ${MAX_MINUTES}, not ${option}`);
  return minutes;
}

/** Decodable JPEGs from 60 to 400 KB, 800 to 1600 px wide; every other one with a camera's EXIF, which uploads lose. */
async function imagePool(): Promise<Buffer[]> {
  const { default: sharp } = await import('sharp');
  const shapes: [number, number][] = [
    [60_000, 800],
    [120_000, 1024],
    [250_000, 1280],
    [400_000, 1600],
  ];
  const pool: Buffer[] = [];
  for (let i = 0; i < 12; i++) {
    const [bytes, width] = shapes[i % shapes.length]!;
    const jpeg = await realJpeg(bytes, width);
    pool.push(i % 2 ? await sharp(jpeg).withExif({ IFD0: { Make: 'SoakCam', Model: 'One', Software: 'soak' } }).jpeg({ quality: 85 }).toBuffer() : jpeg);
  }
  return pool;
}

/** The accounts (Pro, by the admin CLI), each with three folders and a webhook endpoint at the receiver. */
async function createAccounts(topology: Topology, client: SoakClient, receiver: WebhookReceiver): Promise<SoakAccount[]> {
  const accounts: SoakAccount[] = [];
  for (let i = 1; i <= ACCOUNTS; i++) {
    const created = (await topology.admin(['user', 'create', '--username', `soak${i}`, '--password', PASSWORD, '--plan', 'pro'])) as { id: string; username: string; apiKey: string };
    const web = client.web();
    const folderIds: string[] = [];
    for (const name of ['Holidays', 'Work', 'Scans']) {
      const res = await client.call('setup', `${web}/api/user/folders`, { method: 'POST', key: created.apiKey, json: { name } });
      if (!res?.ok) throw new Error(`creating a folder answered ${res?.status}: ${res?.body.toString()}`);
      folderIds.push((JSON.parse(res.body.toString()) as { data: { id: string } }).data.id);
    }
    const webhookPath = `/hooks/${created.username}`;
    const hook = await client.call('setup', `${web}/api/user/webhooks`, {
      method: 'POST',
      key: created.apiKey,
      json: { url: receiver.url(webhookPath), events: ['file.uploaded', 'file.deleted', 'file.expired'] },
    });
    if (!hook?.ok) throw new Error(`adding a webhook answered ${hook?.status}: ${hook?.body.toString()}`);
    const webhookSecret = (JSON.parse(hook.body.toString()) as { data: { secret: string } }).data.secret;
    accounts.push({ ...created, password: PASSWORD, folderIds, webhookPath, webhookSecret });
  }
  return accounts;
}

/** The password hash's cost on this machine before the traffic (median of 5): the password routes' targets scale with it. */
async function passwordHashMs(): Promise<number> {
  const costs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const began = performance.now();
    await hashPassword(PASSWORD);
    costs.push(performance.now() - began);
  }
  return percentile(costs, 50);
}

/** The hot files: uploaded first, served over and over, never changed. */
async function uploadHotFiles(ctx: SoakContext): Promise<void> {
  for (let i = 0; i < HOT_FILES; i++) {
    const account = ctx.accounts[i % ctx.accounts.length]!;
    const bytes = uniqueJpeg(ctx);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), `hot-${i}.jpg`);
    const res = await ctx.client.call('setup', `${ctx.client.web()}/api/upload?format=json`, { method: 'POST', key: account.apiKey, body: form });
    if (!res?.ok) throw new Error(`a hot file's upload answered ${res?.status}: ${res?.body.toString()}`);
    const file = ctx.client.accepted(account, (JSON.parse(res.body.toString()) as { data: UploadResult }).data, bytes, true);
    file.hot = true;
    await ctx.client.read('setup', file);
  }
}

/**
 * Every traffic loop at once until the soak stops, with the RSS of every process sampled every 5 s
 * (and right after a full collection every 2 minutes) and the routes' windows closed every 10 s.
 * Answers the client's own event-loop delay meanwhile: a starved client makes every figure worse.
 */
async function traffic(
  ctx: SoakContext,
  topology: Topology,
  { origin, mcp, streams, signatures }: { origin: ImageOrigin; mcp: Client[]; streams: NotificationStreams; signatures: SignatureCheck },
): Promise<IntervalHistogram> {
  const { recorder } = ctx;
  recorder.begin();
  const loopDelay = monitorEventLoopDelay({ resolution: 20 });
  loopDelay.enable();
  const sampling = every(ctx, 'sampler', 5000, async () => {
    for (const proc of topology.processes) for (const [name, rss] of await rssOf(proc)) recorder.rss(name, rss);
    recorder.rss('soak-client', process.memoryUsage().rss);
    // Each web process's memory by kind (its /metrics).
    for (const [i, origin] of topology.origins.entries()) {
      const metrics = await fetch(`${origin}/metrics`).then((r) => r.text(), () => '');
      for (const [series, kind] of WEB_MEMORY_SERIES) {
        const bytes = new RegExp(`^${series} (\\S+)$`, 'm').exec(metrics)?.[1];
        if (bytes) recorder.heap(`web-${i + 1}`, Number(bytes), kind);
      }
    }
  });
  // Each process in turn, every few minutes: a full collection, then its RSS, which is then what it retains.
  const collections = every(ctx, 'collector', COLLECT_EVERY_MS, async () => {
    for (const proc of topology.processes) {
      await proc.inspector.collectGarbage();
      await sleep(1000);
      for (const [name, rss] of await rssOf(proc)) recorder.rss(name, rss, 'rss-collected');
    }
  });
  const windows = every(ctx, 'window', 10_000, async () => {
    recorder.flush();
    signatures.catchUp();
  });
  await Promise.all([
    multipartUploads(ctx),
    tusUploads(ctx),
    urlUploads(ctx, origin),
    mcpUploads(ctx, ctx.accounts[0]!, mcp),
    hotServing(ctx),
    coldServing(ctx),
    renditions(ctx),
    dashboard(ctx),
    renames(ctx),
    moves(ctx),
    deletes(ctx),
    expiries(ctx),
    shareLinks(ctx),
    polls(ctx),
    streams.broadcastLoop(),
    sampling,
    collections,
    windows,
  ]);
  loopDelay.disable();
  recorder.flush();
  return loopDelay;
}

/** Writes the CSV, the plot and summary.json, prints what was found; throws when a correctness check failed. */
async function report(outDir: string, title: string, checks: Check[], recorder: Recorder, warmup: { latency: number; memory: number }): Promise<{ title: string; rows: BenchRow[] }> {
  await writeFile(path.join(outDir, 'samples.csv'), [CSV_HEADER, ...recorder.samples.map(csvLine)].join('\n') + '\n');
  const svg = soakSvg(recorder.samples, title, { latency: warmup.latency / 60, memory: warmup.memory / 60 }, PLOTTED_ROUTES);
  await writeFile(path.join(outDir, 'soak.svg'), svg);
  await writeFile(path.join(outDir, 'soak.png'), await soakPng(svg));
  const failed = checks.filter((c) => c.kind === 'correctness' && !passed(c));
  const summary = { title, passed: failed.length === 0, checks: checks.map((c) => ({ ...c, passed: passed(c) })), problems: recorder.problems };
  await writeFile(path.join(outDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  for (const check of checks.filter((c) => c.detail)) process.stdout.write(`  ${check.name}: ${check.detail}\n`);
  if (recorder.problems.length > 0) process.stdout.write(`\nWhat the traffic did not expect (first of each route):\n${recorder.problems.map((p) => `  ${p}`).join('\n')}\n`);
  process.stdout.write(`\nsoak output: ${outDir} (samples.csv, soak.png, summary.json, logs)\n`);
  const rows = checks.map(rowOf);
  if (failed.length > 0) {
    printRows(title, rows);
    throw new Error(`${failed.length} correctness check(s) failed: ${failed.map((c) => c.name).join('; ')}`);
  }
  return { title, rows };
}

function rowOf(check: Check): BenchRow {
  return { name: check.name, value: check.value, unit: check.unit, ...(check.target ? { target: check.target } : {}) };
}

/**
 * `npm run bench -- soak [--minutes N] [--out DIR]`: the Procfile topology (2 web, worker, vision) on
 * PostgreSQL and Redis under mixed traffic for N minutes (30), then every correctness check and the
 * RSS and p99 figures; a CSV of every sample and a PNG plot go to DIR (bench-output/soak-<time>).
 * A failed correctness check fails the run; a missed performance target is reported.
 */
export async function run(options: { minutes?: string | undefined; out?: string | undefined } = {}): Promise<{ title: string; rows: BenchRow[] }> {
  const minutes = minutesOf(options.minutes);
  const outDir = path.resolve(options.out ?? path.join('bench-output', `soak-${new Date().toISOString().replace(/[:.]/g, '-')}`));
  await mkdir(outDir, { recursive: true });
  const warmupSeconds = (minutes * 60) / 3;
  const images = await imagePool();
  const origin = await ImageOrigin.start();
  onCleanup(() => origin.close());
  const receiver = await WebhookReceiver.start();
  onCleanup(() => receiver.close());
  const topology = await startTopology(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379', {
    // Loopback origins the URL uploads and webhooks may reach (test-only; refused in production).
    URL_FETCH_ALLOWED_ORIGINS: `${origin.origin},${receiver.origin}`,
    PLAN_PRO_DAILY_LIMIT: '10000000',
    PLAN_PRO_STORAGE_LIMIT: String(10 ** 12),
    RATE_LIMIT_UPLOADS_PER_MINUTE: '10000000',
    CAPTCHA_MAX_NUMBER: '3000',
    FILE_MEMORY_CACHE_BYTES: String(FILE_CACHE_BYTES),
  });
  const recorder = new Recorder(warmupSeconds);
  const ledger = new Ledger();
  const client = new SoakClient(topology.origins, recorder, ledger);
  const db = new pg.Pool({ connectionString: topology.env.DATABASE_URL, max: 3 });
  const redis = createRedis(topology.env.REDIS_URL!, 'worker');
  const jobs = new JobQueues(redis, topology.env.REDIS_PREFIX!);
  let stopping = false;
  const mcp: Client[] = [];
  let streams: NotificationStreams | undefined;
  try {
    const accounts = await createAccounts(topology, client, receiver);
    const ctx: SoakContext = { client, recorder, ledger, accounts, db, jobs, admin: topology.admin, images, endsAt: 0, stopping: () => stopping };
    await uploadHotFiles(ctx);
    const token = await accessToken(client.webs[0]!, accounts[0]!.username, PASSWORD);
    for (const web of client.webs) mcp.push(await mcpClient(`${web}/mcp`, token, '2026-07-28'));
    streams = new NotificationStreams(ctx);
    await streams.open(STREAMS);

    const hashMs = await passwordHashMs();
    process.stdout.write(`\nsoak: ${minutes} min of traffic on ${client.webs.join(', ')}; output in ${outDir}\n`);
    const startedOn = new Date().toISOString().slice(0, 10);
    ctx.endsAt = Date.now() + minutes * 60_000;
    const stopAt = setTimeout(() => (stopping = true), minutes * 60_000);
    const signatures = new SignatureCheck(receiver, accounts);
    const loopDelay = await traffic(ctx, topology, { origin, mcp, streams, signatures });
    clearTimeout(stopAt);

    const checks = await correctnessChecks(ctx, topology, streams, signatures, startedOn);
    // Memory is judged over the second half: the hot-file caches fill in the first third (growth by
    // design), and what a process keeps after a full collection settles for minutes after that.
    const memoryWarmup = (minutes * 60) / 2;
    checks.push(...performanceChecks(recorder.samples, recorder.totals, memoryWarmup, p99Targets(hashMs)));
    checks.push(
      { name: 'password hash (scrypt) on this machine, before the traffic', value: hashMs, unit: 'ms', kind: 'info' },
      { name: 'soak client: event-loop delay p99', value: loopDelay.percentile(99) / 1e6, unit: 'ms', kind: 'info', detail: `max ${(loopDelay.max / 1e6).toFixed(0)} ms` },
      { name: 'GETs sent again after their connection failed', value: recorder.retryCount, unit: 'GETs', kind: 'info', ...(recorder.retries.length ? { detail: recorder.retries.join('; ') } : {}) },
    );
    for (const proc of topology.processes) {
      const errors = errorLines(await readFile(proc.logFile, 'utf8'));
      checks.push({ name: `log lines at error level: ${proc.name}`, value: errors.length, unit: 'lines', kind: 'info', ...(errors.length ? { detail: errors[0]!.slice(0, 300) } : {}) });
    }
    const title = `Soak, ${minutes} min (2 web, worker, vision; PostgreSQL, Redis; ${ACCOUNTS} accounts, ${STREAMS} SSE streams)`;
    return await report(outDir, title, checks, recorder, { latency: warmupSeconds, memory: memoryWarmup });
  } finally {
    stopping = true;
    streams?.close();
    await Promise.all(mcp.map((c) => c.close().catch(() => undefined)));
    await jobs.close();
    redis.disconnect();
    await db.end();
    await topology.stop();
    // Kept whatever happened: the evidence of a failed run is in them.
    for (const proc of topology.processes) await copyFile(proc.logFile, path.join(outDir, `${proc.name}.log`)).catch(() => undefined);
  }
}
