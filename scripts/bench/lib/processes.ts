import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { setPriority, tmpdir } from 'node:os';
import path from 'node:path';
import { JobQueues, QUEUE_NAMES } from '../../../shared/jobs.js';
import { createRedis } from '../../../shared/redis.js';
import { freePort } from '../../lib/ports.js';
import { benchDatabase } from './bench-database.js';
import { onCleanup } from './cleanup.js';
import { nodeChildren } from './proc-stats.js';

export { freePort };

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

type NpmScript = 'start' | 'web' | 'worker' | 'vision';
const BUILD_STEP = 'node scripts/build.mjs --if-stale && ';
let built: Promise<void> | undefined;

function buildOnce(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`node scripts/build.mjs --if-stale failed:\n${output}`))));
  });
}

/** A process started as its npm script runs it; its stdout (the service's JSON log) goes to `logFile`. */
export interface BenchProcess {
  child: ChildProcess;
  logFile: string;
}

/**
 * The command `npm start` (or `npm run web`, `worker`, `vision`) runs (package.json): it sets the
 * process environment (scripts/process-env.sh) and execs node with the service's flags; BENCH_NODE_ARGS
 * join those. Its first step, building dist/ when stale, runs once per bench run. Its stdout goes to
 * a file, as a production log does (nginx's access log is a file too): a pipe would charge reading it
 * to this process, on the same cores.
 */
async function startLikeNpmScript(name: NpmScript, env: Record<string, string>, ready: () => Promise<boolean>): Promise<BenchProcess> {
  const { scripts } = JSON.parse(await readFile('package.json', 'utf8')) as { scripts: Record<NpmScript, string> };
  if (!scripts[name].startsWith(BUILD_STEP)) throw new Error(`package.json: the ${name} script no longer starts with "${BUILD_STEP}"`);
  // Built once per run instead: every process of a run then runs the same dist/, even while sources change.
  await (built ??= buildOnce());
  const command = scripts[name].slice(BUILD_STEP.length).replace(/\bexec node /, `exec node ${benchNodeArgs} `);
  const logFile = path.join((await tempDir(`hfs-bench-${name}-log-`)).dir, 'stdout.log');
  const fd = openSync(logFile, 'a');
  // exec: the shell becomes the service, so its pid is the service's.
  const child = spawn('sh', ['-c', command], { env: { ...process.env, ...env }, stdio: ['ignore', fd, 'pipe'] });
  closeSync(fd);
  const label = name === 'start' ? 'npm start' : `npm run ${name}`;
  try {
    await watchUntilReady(child, label, ready, 300_000);
  } catch (err) {
    const log = await readFile(logFile, 'utf8').catch(() => '');
    throw new Error(`${(err as Error).message}\n${label}'s log:\n${log.slice(-4000)}`, { cause: err });
  }
  return { child, logFile };
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
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
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
  /** the service's stdout: its JSON log */
  logFile: string;
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
  // Node's and glibc's defaults. It prints its banner to stdout, which is a file here: asked instead.
  const { child, logFile } = await startLikeNpmScript('start', env, answersPing(`http://127.0.0.1:${port}`));
  await expectChildren(child.pid!, Number(env.WEB_CONCURRENCY ?? 1), '`npm start`');
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
    logFile,
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
  /** the process's stdout (its children's too): its JSON log */
  logFile: string;
  stop(): Promise<void>;
}

/**
 * A `web` process as `npm run web` runs it beside a service from startService: the same database,
 * Redis, secret and data dir on a port of its own, as production runs several behind a proxy. Stop
 * it before the service (whose stop drops the database). With WEB_CONCURRENCY=N in `extraEnv` it
 * must run N children (node:cluster) sharing the port, or this throws.
 */
export async function startWebProcess(service: Pick<BenchService, 'env'>, extraEnv: Record<string, string> = {}): Promise<BenchWeb> {
  const port = extraEnv.PORT ? Number(extraEnv.PORT) : await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { child, logFile } = await startLikeNpmScript('web', { ...service.env, PORT: String(port), ...extraEnv }, answersPing(url));
  await expectChildren(child.pid!, Number(extraEnv.WEB_CONCURRENCY ?? 1), '`web`');
  return { url, pid: child.pid!, logFile, stop: () => stopProcess(child) };
}

/**
 * With WEB_CONCURRENCY=N > 1 a process must serve through N children: the bench compares such a
 * process with nginx running N workers, so a build that quietly runs one process would pass for N.
 */
export async function expectChildren(pid: number, webConcurrency: number, what: string): Promise<void> {
  if (webConcurrency <= 1) return;
  // The children say they listen a moment after the port first answers (the primary holds it).
  const deadline = Date.now() + 60_000;
  let children = await nodeChildren(pid);
  while (children.length < webConcurrency && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    children = await nodeChildren(pid);
  }
  if (children.length < webConcurrency) {
    throw new Error(
      `${what} was started with WEB_CONCURRENCY=${webConcurrency} but runs ${children.length} child process(es) of Node: ` +
        'this build does not run web processes side by side yet (shared/config.ts WEB_CONCURRENCY, node:cluster)',
    );
  }
}

export interface BenchWorker {
  pid: number;
  logFile: string;
  /** Resolves once its queues hold no waiting or running job. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A `worker` process (every queue) as `npm run worker` runs it, beside a service from startService.
 * Give it (and the web processes whose jobs it takes) a REDIS_PREFIX of their own, or the service's
 * own workers take those jobs too. Ready once a worker listens on each queue.
 */
export async function startWorkerProcess(service: Pick<BenchService, 'env'>, extraEnv: Record<string, string> = {}, nice = 0): Promise<BenchWorker> {
  const env = { ...service.env, ...extraEnv };
  const prefix = env.REDIS_PREFIX ?? 'hfs';
  const redis = createRedis(env.REDIS_URL!);
  const jobs = new JobQueues(redis, prefix);
  let started: BenchProcess;
  try {
    await redis.connect();
    const listening = async () => (await Promise.all(QUEUE_NAMES.map((name) => jobs.queue(name).getWorkersCount()))).every((n) => n > 0);
    if (await listening()) throw new Error(`workers already listen on the queues under REDIS_PREFIX ${prefix}: give this worker a prefix of its own`);
    started = await startLikeNpmScript('worker', env, listening);
  } finally {
    await jobs.close();
    redis.disconnect();
  }
  if (nice) setPriority(started.child.pid!, nice);
  return {
    pid: started.child.pid!,
    logFile: started.logFile,
    idle: () => queuesIdle(env.REDIS_URL!, prefix),
    stop: () => stopProcess(started.child),
  };
}

export interface BenchVision {
  url: string;
  pid: number;
  logFile: string;
  stop(): Promise<void>;
}

/** The moderation service as `npm run vision` runs it, on a port of its own; ready once its model is loaded. */
export async function startVisionProcess(service: Pick<BenchService, 'env'>, extraEnv: Record<string, string> = {}, nice = 0): Promise<BenchVision> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const healthy = () => fetch(`${url}/health`).then((r) => r.ok, () => false);
  const { child, logFile } = await startLikeNpmScript('vision', { ...service.env, VISION_PORT: String(port), VISION_URL: url, ...extraEnv }, healthy);
  if (nice) setPriority(child.pid!, nice);
  return { url, pid: child.pid!, logFile, stop: () => stopProcess(child) };
}

/**
 * How many request lines (`"msg":"request"`) a process has logged so far: read on from where the
 * last call stopped. pino writes asynchronously, so lines of the last moment may still be on their way.
 */
export function requestLogCounter(logFile: string): () => Promise<number> {
  let offset = 0;
  let count = 0;
  let partial = '';
  return async () => {
    const file = await open(logFile, 'r');
    try {
      const buffer = Buffer.alloc(1024 * 1024);
      for (;;) {
        const { bytesRead } = await file.read(buffer, 0, buffer.length, offset);
        if (bytesRead === 0) return count;
        offset += bytesRead;
        const lines = (partial + buffer.toString('utf8', 0, bytesRead)).split('\n');
        partial = lines.pop()!;
        for (const line of lines) if (line.includes('"msg":"request"')) count += 1;
      }
    } finally {
      await file.close();
    }
  };
}

function answersPing(url: string): () => Promise<boolean> {
  return () => fetch(`${url}/api/ping`).then((r) => r.ok, () => false);
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
