import { fork } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { LocalDriver } from '../../shared/storage/local.driver.js';
import { S3Driver } from '../../shared/storage/s3.driver.js';
import { newObjectKey, type StorageDriver } from '../../shared/storage/index.js';
import { onCleanup } from './lib/cleanup.js';
import { freePort, tempDir } from './lib/processes.js';
import type { BenchRow } from './report.js';

const MB = 1024 * 1024;
const STREAMED_MB = 400;

/** `count` copies of one chunk, produced on demand: the source itself holds nothing. */
function repeated(chunk: Buffer, count: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      this.push(sent++ < count ? chunk : null);
    },
  });
}

/** This process's peak RSS growth over `work`, sampled every 20 ms. */
async function peakRssGrowth(work: () => Promise<void>): Promise<number> {
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, process.memoryUsage().rss) - start;
}

/** s3rver in a child process (its memory must not count here), on a free port, with one bucket. */
async function startS3rver(): Promise<string> {
  const port = await freePort();
  const { dir } = await tempDir('hfs-bench-s3rver-');
  const child = fork('test/helpers/s3rver.child.cjs', [String(port), dir, 'bench'], { stdio: 'ignore' });
  onCleanup(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  );
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
  });
  return `http://127.0.0.1:${port}`;
}

/** A 400 MB body through put and get: what streaming costs this process in memory, per driver. */
async function measure(driver: StorageDriver): Promise<number> {
  const chunk = Buffer.alloc(MB, 42);
  // Warm-up: the first put loads and allocates what later puts reuse (the SDK, its agents).
  const warm = newObjectKey();
  await driver.put(warm, repeated(chunk, 20));
  await driver.delete(warm);
  const key = newObjectKey();
  const sink = new Writable({ write: (_chunk, _enc, done) => done() });
  const growth = await peakRssGrowth(async () => {
    await driver.put(key, repeated(chunk, STREAMED_MB));
    await pipeline((await driver.get(key))!.body, sink);
  });
  await driver.delete(key);
  return growth / MB;
}

export async function run(): Promise<{ title: string; rows: BenchRow[] }> {
  const local = new LocalDriver((await tempDir('hfs-bench-local-')).dir);
  const s3 = new S3Driver({ bucket: 'bench', endpoint: await startS3rver(), region: 'us-east-1', forcePathStyle: true, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });
  try {
    // V8 frees dead chunks only after ~64 MB more of them, so growth up to that plus what is in flight is garbage, not a held body (400 MB).
    const target: BenchRow['target'] = ['<=', 128];
    return {
      title: `Storage drivers (${STREAMED_MB} MB streamed in and out)`,
      rows: [
        { name: 'local driver, peak RSS growth', value: await measure(local), unit: 'MB', target },
        { name: 's3 driver (s3rver), peak RSS growth', value: await measure(s3), unit: 'MB', target },
      ],
    };
  } finally {
    await s3.close();
  }
}
