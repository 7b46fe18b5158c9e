import { type ChildProcess, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { NsfwModel } from '../../api/moderation/model.js';
import { parseConfig } from '../../shared/config.js';
import { concurrently, percentile } from './lib/load.js';
import { freePort, startProcess, stopProcess, tempDir } from './lib/processes.js';
import type { BenchRow } from './report.js';

const IMAGES = Number(process.env.BENCH_MODERATION_IMAGES ?? 10_000);
const FIRST = Math.min(1000, IMAGES);
// Throughput: this many images per setting, sent in rounds that alternate between the settings.
const THROUGHPUT_IMAGES = Math.min(IMAGES, 2000);
const ROUNDS = 5;

async function currentRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** CPU time a process has used, all its threads (utime + stime, in clock ticks of 10 ms). */
async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function post(url: string, body: Buffer, name: string) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(body)]), name);
  const started = performance.now();
  const res = await fetch(url, { method: 'POST', body: form });
  const json = (await res.json()) as { elapsedMs: number };
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(json)}`);
  return { wallMs: performance.now() - started, elapsedMs: json.elapsedMs };
}

async function startVision(dir: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = await startProcess(
    'api/moderation/main.ts',
    { VISION_PORT: String(port), DATA_DIR: dir, REDIS_PREFIX: `bench${randomBytes(3).toString('hex')}`, LOG_LEVEL: 'warn', VISION_MAX_FILE_SIZE_MB: '200', ...env },
    'vision ready',
  );
  return { child, base: `http://127.0.0.1:${port}` };
}

/** A moderation service under one setting, fed as a worker feeds it: `concurrency` checks in flight. */
interface Setting {
  name: string;
  base: string;
  pid: number;
  latencies: number[];
  seconds: number;
  /** the service's CPU time: on cores shared with other work, CPU per image is the steadier figure */
  cpuMs: number;
}

async function feed(setting: Setting, jpeg: Buffer, images: number, concurrency: number): Promise<void> {
  const cpuBefore = await cpuMs(setting.pid);
  const sent = await concurrently(images, concurrency, async () => {
    const { wallMs } = await post(`${setting.base}/moderate-image`, jpeg, 'photo.jpg');
    return { status: 200, ms: wallMs };
  });
  setting.cpuMs += (await cpuMs(setting.pid)) - cpuBefore;
  setting.latencies.push(...sent.latencies);
  setting.seconds += sent.seconds;
}

/**
 * Images per second, batched (the default VISION_BATCH_SIZE) against unbatched (1) and against one
 * model thread unbatched, each its own process, fed in alternating rounds so that other load on these
 * cores falls on all of them alike.
 */
async function throughput(dir: string, defaults: { base: string; child: ChildProcess }, jpeg: Buffer, concurrency: number, batchSize: number, threads: number): Promise<BenchRow[]> {
  const unbatched = await startVision(dir, { VISION_BATCH_SIZE: '1' });
  const single = await startVision(dir, { VISION_BATCH_SIZE: '1', VISION_THREADS: '1' });
  try {
    const setting = (name: string, { base, child }: { base: string; child: ChildProcess }): Setting => ({ name, base, pid: child.pid!, latencies: [], seconds: 0, cpuMs: 0 });
    const settings = [
      setting(`batches of up to ${batchSize}, ${threads} threads (default)`, defaults),
      setting(`unbatched (VISION_BATCH_SIZE=1), ${threads} threads`, unbatched),
      setting('unbatched, one thread (VISION_THREADS=1)', single),
    ];
    for (const s of settings) await feed(s, jpeg, concurrency * 2, concurrency);
    for (const s of settings) Object.assign(s, { latencies: [], seconds: 0, cpuMs: 0 });
    const perRound = Math.ceil(THROUGHPUT_IMAGES / ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      // Who goes first changes each round too.
      for (let i = 0; i < settings.length; i++) await feed(settings[(round + i) % settings.length]!, jpeg, perRound, concurrency);
    }
    const rate = (s: Setting) => s.latencies.length / s.seconds;
    const [batched, plain] = settings as [Setting, Setting, Setting];
    return [
      ...settings.flatMap((s, i): BenchRow[] => [
        { name: `1 MP JPEGs, ${concurrency} at once, ${s.name}`, value: rate(s), unit: 'img/s', ...(i === 0 ? { target: ['>=', 20] as BenchRow['target'] } : {}) },
        { name: `  per-image latency p50, ${s.name}`, value: percentile(s.latencies, 50), unit: 'ms' },
        { name: `  service CPU per image, ${s.name}`, value: s.cpuMs / s.latencies.length, unit: 'ms' },
      ]),
      { name: 'batched / unbatched (img/s)', value: rate(batched) / rate(plain), unit: 'ratio' },
    ];
  } finally {
    await stopProcess(unbatched.child);
    await stopProcess(single.child);
  }
}

/**
 * The moderation service in its own process: per-image cost, a 60 s video, memory over time, and
 * images per second batched against unbatched.
 */
export async function run(): Promise<{ title: string; rows: BenchRow[] }> {
  const { dir, remove } = await tempDir('hfs-bench-vision-');
  // The settings the services run with: the defaults, or what this shell sets.
  const config = parseConfig({ ...process.env, DATA_DIR: dir, SECRET_KEY: randomBytes(32).toString('hex') });
  const defaults = await startVision(dir);
  const { child, base } = defaults;
  try {
    // A 1 MP JPEG of noise (every pixel differs, as in a photo).
    const jpeg = await sharp(randomBytes(1000 * 1000 * 3), { raw: { width: 1000, height: 1000, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
    const video = path.join(dir, 'clip.mp4');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=1280x720:rate=30', '-t', '60', '-pix_fmt', 'yuv420p', video]);

    // Baseline: model inference alone on a ready 224×224 frame, one at a time (a model thread of this process).
    const model = new NsfwModel({ threads: 1, batchSize: 1 });
    await model.load();
    const frame = new Uint8Array(randomBytes(224 * 224 * 3));
    const inference: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await model.classify(frame);
      inference.push(performance.now() - t);
    }
    await model.close();

    const perImage: number[] = [];
    for (let i = 0; i < 20; i++) await post(`${base}/moderate-image`, jpeg, 'warm.jpg');
    let rssAtFirst = 0;
    for (let i = 0; i < IMAGES; i++) {
      perImage.push((await post(`${base}/moderate-image`, jpeg, 'photo.jpg')).elapsedMs);
      if (i + 1 === FIRST) rssAtFirst = await currentRss(child.pid!);
    }
    const rssAtEnd = await currentRss(child.pid!);
    const videoRun = await post(`${base}/moderate-video`, await readFile(video), 'clip.mp4');
    const p50 = percentile(perImage, 50);
    const batched = await throughput(dir, defaults, jpeg, config.moderation.concurrency, config.vision.batchSize, config.vision.threads);
    return {
      title: 'Moderation service (nsfwjs MobileNetV2, tfjs wasm)',
      rows: [
        { name: 'inference alone, 224x224 frame, p50 (baseline)', value: percentile(inference, 50), unit: 'ms' },
        { name: '1 MP JPEG incl. decode, p50', value: p50, unit: 'ms', target: ['<=', 120] },
        { name: '1 MP JPEG incl. decode, p95', value: percentile(perImage, 95), unit: 'ms' },
        { name: '1 MP JPEG / inference alone (p50)', value: p50 / percentile(inference, 50), unit: 'ratio' },
        { name: '60 s 720p video, end to end', value: videoRun.wallMs / 1000, unit: 's', target: ['<=', 3] },
        { name: `RSS after ${FIRST} images`, value: rssAtFirst / 1024 / 1024, unit: 'MB' },
        { name: `RSS growth ${FIRST} -> ${IMAGES} images`, value: (rssAtEnd - rssAtFirst) / 1024 / 1024, unit: 'MB', target: ['<=', 50] },
        ...batched,
      ],
    };
  } finally {
    await stopProcess(child);
    await remove();
  }
}
