import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { createRedis } from '../../../../shared/redis.js';
import { onCleanup } from '../cleanup.js';
import {
  type BenchVision,
  type BenchWeb,
  type BenchWorker,
  freePort,
  startVisionProcess,
  startWebProcess,
  startWorkerProcess,
  tempDir,
} from '../processes.js';
import { benchDatabase } from '../bench-database.js';
import { currentRss, nodeChildren } from '../proc-stats.js';
import { Inspector } from './inspector.js';

const run = promisify(execFile);
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** A process whose RSS the soak follows. */
export interface SoakProcess {
  name: string;
  pid: number;
  /** its stdout: the JSON log at LOG_LEVEL=warn */
  logFile: string;
  /** its V8 inspector, on loopback: full collections before memory is measured */
  inspector: Inspector;
}

export interface Topology {
  env: Record<string, string>;
  /** the web processes' origins, on the site's host name (BASE_URL's) */
  origins: string[];
  webs: BenchWeb[];
  worker: BenchWorker;
  vision: BenchVision;
  processes: SoakProcess[];
  /** `npm run -s admin -- …` on the soak's service (compiled, as operators run it): its JSON answer. */
  admin(args: string[]): Promise<unknown>;
  stop(): Promise<void>;
}

/** Refuses anything but this machine: the soak writes, deletes and floods what it is pointed at. */
function assertLoopback(url: string, what: string): void {
  if (!LOOPBACK.has(new URL(url).hostname)) throw new Error(`the soak runs on loopback only: ${what} is ${new URL(url).host}`);
}

/**
 * The Procfile topology on the local PostgreSQL (a fresh database, dropped afterwards) and the real
 * Redis (keys under a prefix of their own, removed afterwards): migrations as `release`, then
 * `vision`, one `worker` and two `web` processes on ports of their own, each started as its npm
 * script runs it. BASE_URL is the first web's, named `localhost`: on an IP address, personal
 * subdomain links (the default URL format) would be no URLs at all. Production puts a proxy in front.
 */
export async function startTopology(redisUrl: string, extraEnv: Record<string, string>): Promise<Topology> {
  assertLoopback(redisUrl, 'Redis');
  const adminDb = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  assertLoopback(adminDb, 'PostgreSQL');
  await run(process.execPath, ['scripts/build.mjs', '--if-stale'], { maxBuffer: 16 * 1024 * 1024 });

  const prefix = `hfs-soak-${process.pid}-${randomBytes(3).toString('hex')}`;
  await pingRedis(redisUrl);
  onCleanup(() => dropRedisKeys(redisUrl, prefix));
  const { dir: dataDir } = await tempDir('hfs-soak-data-');
  const ports = [await freePort(), await freePort()];
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    BASE_URL: `http://localhost:${ports[0]}`,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  onCleanup(await benchDatabase(env));
  if (!env.DATABASE_URL) throw new Error(`the soak needs PostgreSQL: nothing answered at ${adminDb} (BENCH_DATABASE_URL)`);
  await run(process.execPath, ['dist/scripts/migrate.js'], { env: { ...process.env, ...env } });

  const inspectorPorts = new Map<string, number>();
  const inspectable = async (name: string) => {
    inspectorPorts.set(name, await freePort());
    return { NODE_OPTIONS: [process.env.NODE_OPTIONS, `--inspect=127.0.0.1:${inspectorPorts.get(name)}`].filter(Boolean).join(' ') };
  };
  const vision = await startVisionProcess({ env }, await inspectable('vision'));
  env.VISION_URL = vision.url;
  const worker = await startWorkerProcess({ env }, await inspectable('worker'));
  const webs: BenchWeb[] = [];
  for (const [i, port] of ports.entries()) webs.push(await startWebProcess({ env }, { PORT: String(port), ...(await inspectable(`web-${i + 1}`)) }));
  const processes: SoakProcess[] = [];
  for (const [name, { pid, logFile }] of [...webs.map((web, i) => [`web-${i + 1}`, web] as const), ['worker', worker] as const, ['vision', vision] as const]) {
    const inspector = await Inspector.attach(inspectorPorts.get(name)!);
    onCleanup(async () => inspector.close());
    processes.push({ name, pid, logFile, inspector });
  }
  return {
    env,
    origins: ports.map((port) => `http://localhost:${port}`),
    webs,
    worker,
    vision,
    processes,
    async admin(args) {
      const { stdout } = await run(process.execPath, ['dist/scripts/admin.js', ...args], { env: { ...process.env, ...env, LOG_LEVEL: 'warn' } });
      return JSON.parse(stdout);
    },
    async stop() {
      for (const web of webs) await web.stop();
      await worker.stop();
      await vision.stop();
    },
  };
}

/**
 * RSS of a process and of its Node children (web with WEB_CONCURRENCY > 1 serves from children), in
 * bytes by name: `web-1`, and `web-1/2345` for a child. A process that is gone is left out.
 */
export async function rssOf(process: SoakProcess): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  const own = await vmRss(process.pid);
  if (own !== undefined) found.set(process.name, own);
  for (const child of await nodeChildren(process.pid)) {
    const rss = await vmRss(child);
    if (rss !== undefined) found.set(`${process.name}/${child}`, rss);
  }
  return found;
}

/** A process's RSS, or undefined once it has gone. */
function vmRss(pid: number): Promise<number | undefined> {
  return currentRss(pid).catch(() => undefined);
}

async function pingRedis(url: string): Promise<void> {
  const redis = createRedis(url);
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw new Error(`the soak needs Redis at ${url} (BENCH_REDIS_URL): ${(err as Error).message}`, { cause: err });
  } finally {
    redis.disconnect();
  }
}

async function dropRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = createRedis(url);
  try {
    await redis.connect();
    for (let cursor = '0'; ; ) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      if (next === '0') break;
      cursor = next;
    }
  } finally {
    redis.disconnect();
  }
}
