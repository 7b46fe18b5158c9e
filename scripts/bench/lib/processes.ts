import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { JobQueues, QUEUE_NAMES } from '../../../shared/jobs.js';
import { createRedis } from '../../../shared/redis.js';
import { freePort } from '../../lib/ports.js';
import { onCleanup } from './cleanup.js';

export { freePort };

/** Peak resident set size (VmHWM) of a process, in bytes. */
export async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** Resets the process's peak RSS to its current RSS (Linux `clear_refs` 5) and answers that RSS. */
export async function resetPeakRss(pid: number): Promise<number> {
  await writeFile(`/proc/${pid}/clear_refs`, '5');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

const stops = new WeakMap<ChildProcess, () => Promise<void>>();

// BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the processes under test.
const benchNodeArgs = process.env.BENCH_NODE_ARGS ?? '';

/**
 * Starts a TypeScript entry point as its own process (under tsx) and waits until its output says
 * `ready`. The process is registered for clean-up, so a benchmark that throws does not leave it running.
 */
export function startProcess(script: string, env: Record<string, string>, ready: string, timeoutMs = 120_000): Promise<ChildProcess> {
  const nodeArgs = benchNodeArgs.split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return watchUntilReady(child, script, ready, timeoutMs);
}

/**
 * The command `npm start` (or `npm run web`) runs (package.json): it builds dist/ when stale, sets the
 * process environment (scripts/process-env.sh) and execs node with the service's flags; BENCH_NODE_ARGS
 * join those.
 */
async function startLikeNpmScript(name: 'start' | 'web', env: Record<string, string>, ready: Readiness): Promise<ChildProcess> {
  const { scripts } = JSON.parse(await readFile('package.json', 'utf8')) as { scripts: Record<typeof name, string> };
  const command = scripts[name].replace(/\bexec node /, `exec node ${benchNodeArgs} `);
  // exec: the shell becomes the service, so its pid is the service's.
  const child = spawn('sh', ['-c', command], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return watchUntilReady(child, name === 'start' ? 'npm start' : `npm run ${name}`, ready, 300_000);
}

/** A line the process prints once it is ready, or a check polled until it holds (for a process that says nothing at LOG_LEVEL=warn). */
type Readiness = string | (() => Promise<boolean>);

async function watchUntilReady(child: ChildProcess, script: string, ready: Readiness, timeoutMs: number): Promise<ChildProcess> {
  const stop = onCleanup(() => terminate(child));
  stops.set(child, stop);
  let output: string | undefined = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const waitingFor = typeof ready === 'string' ? `say "${ready}"` : 'answer';
      const timer = setTimeout(() => reject(new Error(`${script} did not ${waitingFor} within ${timeoutMs / 1000} s:\n${output}`)), timeoutMs);
      const done = () => {
        output = undefined;
        clearTimeout(timer);
        resolve();
      };
      // The pipes are drained for the whole run (a full pipe would block the child); the text is kept
      // only until `ready`, so a chatty process does not grow this one.
      const onData = (d: Buffer) => {
        if (output === undefined) return;
        output += d.toString();
        if (typeof ready === 'string' && output.includes(ready)) done();
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${script} exited with ${code}:\n${output ?? ''}`));
      });
      if (typeof ready === 'function') {
        void (async () => {
          while (output !== undefined && child.exitCode === null) {
            if (await ready()) return done();
            await new Promise((r) => setTimeout(r, 100));
          }
        })();
      }
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return child;
}

export function stopProcess(child: ChildProcess): Promise<void> {
  return (stops.get(child) ?? (() => terminate(child)))();
}

/** SIGTERM, so the service stops its own children (redis-server, moderation); SIGKILL if it hangs. */
function terminate(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

let runDir: Promise<string> | undefined;

/**
 * A fresh directory inside this run's directory (under BENCH_DIR, else the system's temp dir),
 * removed at clean-up. Every contender's files share one parent, so the file system places them
 * alike: on ext4 without a journal, creating a file costs up to ~2 ms of kernel CPU for minutes
 * after many files were deleted nearby (README, Benchmarks), and contenders scattered over
 * differently affected places would not be compared on equal terms.
 */
export async function tempDir(prefix: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  runDir ??= mkdtemp(path.join(process.env.BENCH_DIR ?? tmpdir(), 'hfs-bench-run-')).then((dir) => {
    onCleanup(() => {
      runDir = undefined; // the next benchmark of this run starts a directory of its own
      return rm(dir, { recursive: true, force: true });
    });
    return dir;
  });
  const dir = await mkdtemp(path.join(await runDir, prefix));
  return { dir, remove: onCleanup(() => rm(dir, { recursive: true, force: true })) };
}

export interface BenchService {
  url: string;
  pid: number;
  apiKey: string;
  env: Record<string, string>;
  database: string;
  /** Resolves once the service's queues hold no waiting or running job: its background work is done. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The real service as `npm start` runs it (web + workers in one process), on PostgreSQL when one is
 * reachable (BENCH_DATABASE_URL, else the local server), otherwise on the embedded PGlite.
 */
export async function startService(extraEnv: Record<string, string> = {}): Promise<BenchService> {
  const { dir: dataDir, remove: removeDataDir } = await tempDir('hfs-bench-');
  const port = await freePort();
  const visionPort = await freePort();
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    // Its own moderation service, not whatever answers on the default port 3001.
    VISION_PORT: String(visionPort),
    VISION_URL: `http://127.0.0.1:${visionPort}`,
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
    LOG_LEVEL: 'warn',
    PLAN_PRO_DAILY_LIMIT: '10000000',
    RATE_LIMIT_UPLOADS_PER_MINUTE: '10000000',
    ...extraEnv,
  };
  const dropDatabase = onCleanup(await benchDatabase(env));
  // As `npm start` runs it (compiled, with its node flags and GLIBC_TUNABLES); the baselines keep
  // Node's and glibc's defaults.
  const child = await startLikeNpmScript('start', env, 'is running');
  // The moderation child loads its model after the web says it is running: measuring during that
  // load would charge its CPU to whatever is measured first.
  await waitForOk(`${env.VISION_URL}/health`);
  const created = await runScript('scripts/admin.ts', ['user', 'create', '--username', 'bench', '--password', 'bench-pass-123', '--plan', 'pro'], env);
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    apiKey: JSON.parse(created).apiKey,
    env,
    database: env.DATABASE_URL ? 'postgres' : 'pglite',
    idle: () => queuesIdle(env.REDIS_URL!, env.REDIS_PREFIX ?? 'hfs'),
    async stop() {
      await stopProcess(child);
      await dropDatabase();
      await removeDataDir();
    },
  };
}

export interface BenchWeb {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * A `web` process as `npm run web` runs it beside a service from startService: the same database,
 * Redis, secret and data dir on a port of its own, as production runs several behind a proxy. Stop
 * it before the service (whose stop drops the database).
 */
export async function startWebProcess(service: BenchService, extraEnv: Record<string, string> = {}): Promise<BenchWeb> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const answers = () => fetch(`${url}/api/ping`).then((r) => r.ok, () => false);
  const child = await startLikeNpmScript('web', { ...service.env, PORT: String(port), ...extraEnv }, answers);
  return { url, pid: child.pid!, stop: () => stopProcess(child) };
}

async function queuesIdle(redisUrl: string, prefix: string, timeoutMs = 300_000) {
  const redis = createRedis(redisUrl);
  const jobs = new JobQueues(redis, prefix);
  try {
    await redis.connect();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const counts = await Promise.all(QUEUE_NAMES.map((name) => jobs.queue(name).getJobCounts('waiting', 'active', 'prioritized')));
      if (counts.every((c) => Object.values(c).every((n) => n === 0))) return;
      if (Date.now() > deadline) throw new Error(`the service's queues were still busy after ${timeoutMs / 1000} s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await jobs.close();
    redis.disconnect();
  }
}

async function waitForOk(url: string, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await fetch(url).then((r) => r.ok, () => false))) {
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function benchDatabase(env: Record<string, string>): Promise<() => Promise<void>> {
  const admin = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `hfs_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  try {
    await client.connect();
    await client.query(`create database "${name}"`);
  } catch (err) {
    await client.end().catch(() => undefined);
    if (process.env.BENCH_DATABASE_URL) throw err;
    return async () => undefined; // no PostgreSQL here: the embedded PGlite it is
  }
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  env.DATABASE_URL = url.toString();
  env.SECRET_KEY = randomBytes(32).toString('hex');
  return async () => {
    const drop = new pg.Client({ connectionString: admin });
    await drop.connect();
    await drop.query(`drop database if exists "${name}" with (force)`);
    await drop.end();
  };
}

export function runScript(script: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${script} failed: ${err}`))));
  });
}
