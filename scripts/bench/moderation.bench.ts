import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { NsfwModel } from '../../api/moderation/model.js';
import { percentile } from './lib/load.js';
import { freePort, startProcess, stopProcess, tempDir } from './lib/processes.js';
import type { BenchRow } from './report.js';

const IMAGES = Number(process.env.BENCH_MODERATION_IMAGES ?? 10_000);
const FIRST = Math.min(1000, IMAGES);

async function currentRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
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

/** The moderation service in its own process: per-image cost, a 60 s video, and memory over time. */
export async function run(): Promise<{ title: string; rows: BenchRow[] }> {
  const { dir, remove } = await tempDir('hfs-bench-vision-');
  const port = await freePort();
  const child = await startProcess(
    'api/moderation/main.ts',
    { VISION_PORT: String(port), DATA_DIR: dir, REDIS_PREFIX: `bench${randomBytes(3).toString('hex')}`, LOG_LEVEL: 'warn', VISION_MAX_FILE_SIZE_MB: '200' },
    'vision ready',
  );
  const base = `http://127.0.0.1:${port}`;
  try {
    // A 1 MP JPEG of noise (every pixel differs, as in a photo).
    const jpeg = await sharp(randomBytes(1000 * 1000 * 3), { raw: { width: 1000, height: 1000, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
    const video = path.join(dir, 'clip.mp4');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=1280x720:rate=30', '-t', '60', '-pix_fmt', 'yuv420p', video]);

    // Baseline: model inference alone on a ready 224×224 frame, in this process.
    const model = new NsfwModel();
    await model.load();
    const frame = new Uint8Array(randomBytes(224 * 224 * 3));
    const inference: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await model.classify(frame);
      inference.push(performance.now() - t);
    }

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
      ],
    };
  } finally {
    await stopProcess(child);
    await remove();
  }
}
