import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { imageChunk, jpegBody, median, multipartUpload, percentile, realJpeg, tusUpload } from './lib/load.js';
import {
  type BenchService,
  freePort,
  startProcess,
  startService,
  startVisionProcess,
  startWebProcess,
  startWorkerProcess,
  stopProcess,
  tempDir,
} from './lib/processes.js';
import { peakRss, resetPeakRss } from './lib/proc-stats.js';
import { CONCURRENCY, pairedRatio, printRounds, smallContender, type SmallContender, smallRounds } from './lib/upload-rounds.js';
import type { BenchRow } from './report.js';

const MB = 1024 * 1024;
const BIG = 512 * MB;
const BIG_ROUNDS = 10;
const BIG_WARMUP_ROUNDS = 2;
const SMALL = 100 * 1024;
const SMALL_ROUNDS = 8;
const SMALL_PER_ROUND = 800;
// Real JPEGs: every upload costs the model ~70 ms of CPU afterwards, so fewer and shorter rounds.
const IMAGE_ROUNDS = 5;
const IMAGE_PER_ROUND = 200;
// What `npm start` gives its moderation child (scripts/start.ts): queued work yields to requests.
// The split service's worker and moderation service get it too: on these two cores it stands in for
// the other cores (or machines) production gives them.
const BACKGROUND_NICENESS = 10;
const TUS_ROUNDS = 3;
// What resumable clients commonly send per request (Uppy's advice for proxies with body limits).
const TUS_CHUNK = 50 * MB;

async function deleteFile(base: string, key: string, filename: string) {
  await fetch(`${base}/api/user/images/${filename}`, { method: 'DELETE', headers: { 'x-api-key': key } });
}

/** The account's metadata removal (on by default), switched between rounds, never during one. */
async function setStripMetadata(service: BenchService, stripMetadata: boolean) {
  const res = await fetch(`${service.url}/api/user/settings`, {
    method: 'PATCH',
    headers: { 'x-api-key': service.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ stripMetadata }),
  });
  if (res.status !== 200) throw new Error(`settings answered ${res.status}`);
}

async function startBaseline(script: string) {
  const port = await freePort();
  const uploads = await tempDir('hfs-bench-baseline-');
  const child = await startProcess(script, { PORT: String(port), UPLOAD_DIR: uploads.dir }, 'ready');
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      await stopProcess(child);
      await uploads.remove();
    },
  };
}

/**
 * A 512 MiB upload over tus against the same upload in one multipart request, on the same service,
 * rounds interleaved: the throughput ratio and each one's peak RSS growth on the web process.
 */
async function tusAgainstMultipart(service: BenchService, chunk: Buffer): Promise<BenchRow[]> {
  const scratch = await tempDir('hfs-bench-tus-');
  const file = path.join(scratch.dir, 'big.png');
  await pipeline(Readable.from((function* () { for (let i = 0; i < BIG / chunk.length; i++) yield chunk; })()), createWriteStream(file));
  const tusMs: number[] = [];
  const multipartMs: number[] = [];
  let tusGrowth = 0;
  let multipartGrowth = 0;
  const growthOf = async (work: () => Promise<void>) => {
    const before = await resetPeakRss(service.pid);
    await work();
    return (await peakRss(service.pid)) - before;
  };
  const viaTus = async () => {
    const { ms, url } = await tusUpload(`${service.url}/api/uploads`, file, { key: service.apiKey, chunkSize: TUS_CHUNK });
    const result = (await (await fetch(`${url}/result`, { headers: { 'x-api-key': service.apiKey } })).json()) as { data: { filename: string } };
    await deleteFile(service.url, service.apiKey, result.data.filename);
    tusMs.push(ms);
  };
  const viaMultipart = async () => {
    const ours = await multipartUpload(`${service.url}/api/upload?format=json`, BIG, { key: service.apiKey, chunk });
    if (ours.status !== 200) throw new Error(`big upload answered ${ours.status}: ${ours.body}`);
    await deleteFile(service.url, service.apiKey, JSON.parse(ours.body).data.filename);
    multipartMs.push(ours.ms);
  };
  try {
    for (let round = 0; round < TUS_ROUNDS; round++) {
      const order = round % 2 === 0 ? [viaTus, viaMultipart] : [viaMultipart, viaTus];
      for (const contender of order) {
        const growth = await growthOf(contender);
        if (contender === viaTus) tusGrowth = Math.max(tusGrowth, growth);
        else multipartGrowth = Math.max(multipartGrowth, growth);
        await service.idle();
      }
    }
  } finally {
    await scratch.remove();
  }
  const mbps = (ms: number) => BIG / MB / (ms / 1000);
  printRounds('512 MiB tus against multipart, MB/s', { tus: tusMs, multipart: multipartMs }, mbps);
  return [
    { name: `512 MiB tus upload (${TUS_CHUNK / MB} MiB PATCHes)`, value: mbps(median(tusMs)), unit: 'MB/s' },
    { name: '512 MiB tus upload / multipart upload, same service', value: pairedRatio(multipartMs, tusMs), unit: 'ratio' },
    { name: '512 MiB tus upload, peak RSS growth', value: tusGrowth / MB, unit: 'MB', target: ['<=', 32] },
    { name: '512 MiB multipart upload, peak RSS growth (same rounds)', value: multipartGrowth / MB, unit: 'MB' },
  ];
}

const PARTS = ['big', 'tus', 'small', 'images'] as const;
type Part = (typeof PARTS)[number];

/**
 * Big uploads (a JPEG as a phone sends it, metadata removed on the way in): the service against a
 * bare pipe-to-file server and against itself with the removal off; the same over tus; small ones
 * against bare Koa + multer, PNG-typed bodies the moderation service cannot decode, then real JPEGs
 * to the service split into web, worker and vision processes and to `npm start`.
 * BENCH_UPLOAD_PARTS=big,tus,small,images chooses the parts (default all).
 */
export async function run(): Promise<{ title: string; rows: BenchRow[] }> {
  const parts = (process.env.BENCH_UPLOAD_PARTS ?? PARTS.join(',')).split(',').filter(Boolean);
  const unknown = parts.filter((part) => !PARTS.includes(part as Part));
  if (unknown.length > 0) throw new Error(`BENCH_UPLOAD_PARTS: unknown part(s) ${unknown.join(', ')}; known: ${PARTS.join(', ')}`);
  const service = await startService();
  const rows: BenchRow[] = [];
  try {
    const chunk = imageChunk(MB, BIG);
    if (parts.includes('big')) rows.push(...(await bigUploads(service, chunk)));
    if (parts.includes('tus')) rows.push(...(await tusAgainstMultipart(service, chunk)));
    if (parts.includes('small')) rows.push(...(await smallUploads(service)));
    if (parts.includes('images')) rows.push(...(await imageUploads(service)));
  } finally {
    await service.stop();
  }
  rows.push({ name: 'load average (1 min) at the end: other work on these cores', value: loadavg()[0]!, unit: '' });
  return { title: `Uploads (service on ${service.database})`, rows };
}

async function bigUploads(service: BenchService, chunk: Buffer): Promise<BenchRow[]> {
  const jpeg = jpegBody(MB);
  const bigJpeg = { chunk: jpeg.chunk, fileHead: jpeg.head, type: 'jpeg' } as const;
  const upload = `${service.url}/api/upload`;
  const rows: BenchRow[] = [];
  // Big upload: throughput ratio (the median of interleaved runs, each round started by another
  // contender) and the web process's peak RSS growth over a 1 MB upload.
  await multipartUpload(upload, MB, { key: service.apiKey, chunk });
  const rssAfterSmall = await peakRss(service.pid);
  // Two baselines: the bare pipe (no multipart parsing at all) and bare Koa + multer (the
  // same multipart parser as the service), so the figures show where a gap comes from.
  const pipe = await startBaseline('scripts/bench/baselines/pipe-server.ts');
  const multipart = await startBaseline('scripts/bench/baselines/koa-multer-server.ts');
  // Each contender's file is gone before the next upload starts: removing 512 MiB takes ~50 ms and
  // slows a write running beside it by about as much, so a removal left running would be charged
  // to whoever comes next (the service's file goes through its API and the deletion job).
  const baselineUpload = async (url: string) => {
    const { ms, body } = await multipartUpload(url, BIG, bigJpeg);
    await rm(body);
    return ms;
  };
  const baseMs: number[] = [];
  const multerMs: number[] = [];
  const oursMs: number[] = [];
  const keptMs: number[] = [];
  const serviceUpload = async () => {
    const ours = await multipartUpload(`${upload}?format=json`, BIG, { key: service.apiKey, ...bigJpeg });
    if (ours.status !== 200) throw new Error(`big upload answered ${ours.status}: ${ours.body}`);
    await deleteFile(service.url, service.apiKey, JSON.parse(ours.body).data.filename);
    return ours.ms;
  };
  const contenders: { times: number[]; run: () => Promise<number> }[] = [
    { times: baseMs, run: () => baselineUpload(pipe.url) },
    { times: multerMs, run: () => baselineUpload(multipart.url) },
    { times: oursMs, run: serviceUpload },
    {
      times: keptMs,
      run: async () => {
        await setStripMetadata(service, false);
        try {
          return await serviceUpload();
        } finally {
          await setStripMetadata(service, true);
        }
      },
    },
  ];
  // Unmeasured warm-up rounds: a fresh process parses its first gigabyte or so far slower than a
  // running server does (the service: 582 and 589 MB/s, then 902-1062 MB/s from the third upload
  // on), which would put cold starts, not the pipeline, into the medians. Everyone gets the same.
  for (let round = 0; round < BIG_WARMUP_ROUNDS; round++) {
    for (const contender of contenders) {
      await contender.run();
      await service.idle();
    }
  }
  // Who goes first matters (the page cache is freshest then), so each round starts with another.
  // Nobody starts while the service still works off what an upload queued (its moderation check):
  // that would charge the service's work to whoever comes next.
  for (let round = 0; round < BIG_ROUNDS; round++) {
    for (let i = 0; i < contenders.length; i++) {
      const contender = contenders[(round + i) % contenders.length]!;
      contender.times.push(await contender.run());
      await service.idle();
    }
  }
  await pipe.stop();
  await multipart.stop();
  const mbps = (ms: number) => BIG / MB / (ms / 1000);
  printRounds('512 MiB rounds, MB/s', { 'bare pipe': baseMs, 'bare Koa+multer': multerMs, service: oursMs, 'metadata kept': keptMs }, mbps);
  const rssGrowth = (await peakRss(service.pid)) - rssAfterSmall;
  // Medians: single runs swing by a third here, and a best-of picks whichever got lucky.
  const [base, bareMulter, ours] = [median(baseMs), median(multerMs), median(oursMs)];
  // Ratios: the median of each round's own ratio. The machine's speed drifts by 2x within a run,
  // and contenders of one round ran minutes apart from another round's; in-round ratios compare
  // contenders measured back to back.
  rows.push(
    { name: '512 MiB upload, bare pipe server', value: mbps(base), unit: 'MB/s' },
    { name: '512 MiB upload, bare Koa+multer', value: mbps(bareMulter), unit: 'MB/s' },
    { name: '512 MiB upload, service', value: mbps(ours), unit: 'MB/s' },
    { name: '512 MiB upload, service / baseline', value: pairedRatio(baseMs, oursMs), unit: 'ratio', target: ['>=', 0.9] },
    { name: '512 MiB upload, service / baseline, ratio of medians', value: base / ours, unit: 'ratio' },
    { name: '512 MiB upload, service / bare Koa+multer', value: pairedRatio(multerMs, oursMs), unit: 'ratio' },
    { name: '512 MiB upload, service with metadata kept', value: mbps(median(keptMs)), unit: 'MB/s' },
    { name: '512 MiB upload, metadata removed / kept, same service', value: pairedRatio(keptMs, oursMs), unit: 'ratio', target: ['>=', 0.9] },
    { name: '512 MiB upload, service peak RSS growth', value: rssGrowth / MB, unit: 'MB', target: ['<=', 32] },
  );
  return rows;
}

/**
 * Small uploads at concurrency 32 (PNG-typed bodies the moderation service cannot decode, so it
 * answers at once): req/s ratio and the service's latency spread. A second service with moderation
 * off runs the same rounds: its figure is the upload pipeline's own cost, and the difference to the
 * first is what moderating every upload costs on these cores.
 */
async function smallUploads(service: BenchService): Promise<BenchRow[]> {
  const body = { chunk: imageChunk(SMALL), type: 'png' } as const;
  const koa = await startBaseline('scripts/bench/baselines/koa-multer-server.ts');
  const unmoderated = await startService({ MODERATION_ENABLED: 'false' });
  const baseline = smallContender('bare Koa+multer', koa.url, body);
  const service100k = smallContender('service', `${service.url}/api/upload`, body, service);
  const pipelineOnly = smallContender('moderation off', `${unmoderated.url}/api/upload`, body, unmoderated);
  try {
    await smallRounds('100 KB', [baseline, service100k, pipelineOnly], SMALL_ROUNDS, SMALL_PER_ROUND, 200);
  } finally {
    await koa.stop();
    await unmoderated.stop();
  }
  printRounds('100 KB rounds, req/s', { 'bare Koa+multer': baseline.rps, service: service100k.rps, 'moderation off': pipelineOnly.rps }, (rps) => rps);
  printRounds('100 KB rounds, p99 / p50', { 'bare Koa+multer': baseline.tails, service: service100k.tails }, (tail) => tail, 2);
  const rps = (c: SmallContender) => median(c.rps);
  // The tail target is held per round, like the throughput ratio: pooled over rounds, p99 comes
  // from the slow rounds and p50 from the fast ones (the machine's speed drifts 2x within a run),
  // so the pooled figure measures that drift as much as the service. It is printed beside it.
  const p50 = percentile(service100k.latencies, 50);
  const p99 = percentile(service100k.latencies, 99);
  return [
    { name: '100 KB uploads x32, bare Koa+multer', value: rps(baseline), unit: 'req/s' },
    { name: '100 KB uploads x32, service', value: rps(service100k), unit: 'req/s' },
    { name: '100 KB uploads x32, service / baseline', value: pairedRatio(service100k.rps, baseline.rps), unit: 'ratio', target: ['>=', 0.6] },
    { name: '100 KB uploads x32, service / baseline, ratio of medians', value: rps(service100k) / rps(baseline), unit: 'ratio' },
    { name: '100 KB uploads x32, service with moderation off', value: rps(pipelineOnly), unit: 'req/s' },
    { name: '100 KB uploads x32, service with moderation off / baseline', value: pairedRatio(pipelineOnly.rps, baseline.rps), unit: 'ratio' },
    { name: '100 KB uploads x32, service p50', value: p50, unit: 'ms' },
    { name: '100 KB uploads x32, service p99', value: p99, unit: 'ms' },
    { name: '100 KB uploads x32, service p99 / p50, median of rounds', value: median(service100k.tails), unit: 'ratio', target: ['<=', 4] },
    { name: '100 KB uploads x32, service p99 / p50, pooled over rounds', value: p99 / p50, unit: 'ratio' },
    { name: '100 KB uploads x32, bare Koa+multer p99 / p50, median of rounds', value: median(baseline.tails), unit: 'ratio' },
  ];
}

/**
 * Real 100 KB JPEGs (decoded, judged by the model, thumbnailed), at concurrency 32: the service as
 * production splits it — a `web` process, a `worker` process that moderates and makes thumbnails,
 * the moderation service in its own, both at the niceness `npm start` gives its moderation child —
 * and `npm start` (web, workers and thumbnails in one process, the moderation service its niced
 * child), against bare Koa + multer receiving the same bytes. Each round is a burst: the queued work
 * (the model's ~70 ms of CPU an image, the thumbnails) goes on beside it and after it, and the next
 * round waits until it is done. The split web process runs its rounds twice: beside its worker and
 * vision on these 2 cores, and with both stopped during the round (SIGSTOP, then SIGCONT), as where
 * they run on cores of their own.
 */
async function imageUploads(service: BenchService): Promise<BenchRow[]> {
  if (service.database !== 'postgres') throw new Error('the image uploads need PostgreSQL (BENCH_DATABASE_URL): web and worker processes cannot share the embedded database');
  const body = { chunk: await realJpeg(SMALL), type: 'jpeg' } as const;
  // Queues of their own, so the jobs of this web process go to this worker, not to npm start's.
  const split = { REDIS_PREFIX: `split${randomBytes(3).toString('hex')}` };
  const vision = await startVisionProcess(service, split, BACKGROUND_NICENESS);
  const worker = await startWorkerProcess(service, { ...split, VISION_URL: vision.url }, BACKGROUND_NICENESS);
  const web = await startWebProcess(service, { ...split, VISION_URL: vision.url });
  const koa = await startBaseline('scripts/bench/baselines/koa-multer-server.ts');
  const baseline = smallContender('bare Koa+multer', koa.url, body);
  const splitWeb = smallContender('web + worker + vision', `${web.url}/api/upload?format=json`, body, { apiKey: service.apiKey, idle: worker.idle });
  // The same web process with its worker and vision stopped while a round runs, as on cores of their own: they catch up after it.
  const signal = (name: NodeJS.Signals) => () => [worker.pid, vision.pid].forEach((pid) => process.kill(pid, name));
  const webAlone = {
    ...smallContender('web, worker + vision on other cores', splitWeb.url, body, { apiKey: service.apiKey, idle: worker.idle }),
    aside: { stop: signal('SIGSTOP'), resume: signal('SIGCONT') },
  };
  const allInOne = smallContender('npm start', `${service.url}/api/upload?format=json`, body, service);
  try {
    await expectModeratedAndThumbnailed(service, web.url, body, worker.idle);
    await smallRounds('100 KB JPEG', [baseline, splitWeb, webAlone, allInOne], IMAGE_ROUNDS, IMAGE_PER_ROUND, 64);
  } finally {
    await koa.stop();
    await web.stop();
    await worker.stop();
    await vision.stop();
  }
  const contenders = [baseline, splitWeb, webAlone, allInOne];
  printRounds('100 KB JPEG rounds, req/s', Object.fromEntries(contenders.map((c) => [c.name, c.rps])), (rps) => rps);
  const ratios = (c: SmallContender) => c.rps.map((value, round) => value / baseline.rps[round]!);
  const others = [splitWeb, webAlone, allInOne];
  printRounds('100 KB JPEG rounds, / bare Koa+multer', Object.fromEntries(others.map((c) => [c.name, ratios(c)])), (r) => r, 2);
  printRounds('100 KB JPEG rounds, seconds until the queued work was done', Object.fromEntries(others.map((c) => [c.name, c.catchUp])), (s) => s, 1);
  const name = `100 KB JPEG uploads x${CONCURRENCY}`;
  const perUpload = (c: SmallContender) => (median(c.catchUp) * 1000) / IMAGE_PER_ROUND;
  return [
    { name: `${name}, bare Koa+multer`, value: median(baseline.rps), unit: 'req/s' },
    { name: `${name}, ${splitWeb.name}`, value: median(splitWeb.rps), unit: 'req/s' },
    { name: `${name}, ${allInOne.name}`, value: median(allInOne.rps), unit: 'req/s' },
    { name: `${name}, ${webAlone.name}`, value: median(webAlone.rps), unit: 'req/s' },
    { name: `${name}, ${splitWeb.name} / bare Koa+multer`, value: pairedRatio(splitWeb.rps, baseline.rps), unit: 'ratio', target: ['>=', 0.6] },
    { name: `${name}, ${webAlone.name} / bare Koa+multer`, value: pairedRatio(webAlone.rps, baseline.rps), unit: 'ratio', target: ['>=', 0.6] },
    { name: `${name}, ${allInOne.name} / bare Koa+multer`, value: pairedRatio(allInOne.rps, baseline.rps), unit: 'ratio' },
    { name: `${name}, ${splitWeb.name} p99 / p50, median of rounds`, value: median(splitWeb.tails), unit: 'ratio' },
    { name: `${name}, ${splitWeb.name}: queued work left after a round, per upload`, value: perUpload(splitWeb), unit: 'ms' },
    { name: `${name}, ${allInOne.name}: queued work left after a round, per upload`, value: perUpload(allInOne), unit: 'ms' },
  ];
}

/**
 * An upload through the split web process is judged and gets its thumbnail once its worker is idle:
 * the worker really does both (read from the files table, whatever the API answers meanwhile).
 */
async function expectModeratedAndThumbnailed(service: BenchService, webUrl: string, body: SmallContender['body'], idle: () => Promise<void>) {
  const res = await multipartUpload(`${webUrl}/api/upload?format=json`, body.chunk.length, { key: service.apiKey, ...body });
  if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${res.body}`);
  const { filename } = (JSON.parse(res.body) as { data: { filename: string } }).data;
  await idle();
  const db = new pg.Client({ connectionString: service.env.DATABASE_URL });
  await db.connect();
  try {
    const { rows } = await db.query<{ judged: boolean; thumbnailed: boolean }>(
      'select moderated_at is not null as judged, thumbnail_at is not null as thumbnailed from files where filename = $1',
      [filename],
    );
    if (!rows[0]?.judged || !rows[0].thumbnailed) throw new Error(`the worker left ${filename} ${JSON.stringify(rows[0] ?? 'not stored')}`);
  } finally {
    await db.end();
  }
}
