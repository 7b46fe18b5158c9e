import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import { exampleConfig, hasNginx, nginxVersion } from '../lib/nginx.js';
import { complaints, launchNginx, logsOf, staticServer } from './lib/bench-nginx.js';
import { get, imageChunk, median, multipartUpload, realJpeg } from './lib/load.js';
import {
  type BenchService,
  type BenchWeb,
  freePort,
  requestLogCounter,
  startProcess,
  startService,
  startWebProcess,
  stopProcess,
  tempDir,
} from './lib/processes.js';
import { hasWrk, runWrk, type WrkResult } from './lib/wrk.js';
import type { BenchRow } from './report.js';

const KB = 1024;
const MB = 1024 * 1024;
// About five minutes in all: (warm-up + rounds × seconds) per measured run.
const SECONDS = Number(process.env.BENCH_SERVE_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_SERVE_ROUNDS ?? 3);
const WARMUP_SECONDS = Number(process.env.BENCH_SERVE_WARMUP_SECONDS ?? 2);
// On, as a default server logs; the service logs its line per request at LOG_LEVEL=info (below).
const ACCESS_LOG = process.env.BENCH_NGINX_ACCESS_LOG === 'off' ? 'off' : 'on';
const WRK = { threads: 2, connections: 64 };
/** Processes of the service against workers of nginx: the machine's two cores. */
const PROCESSES = 2;
const RENDITION = { query: 'w=640&format=webp', width: 640, type: 'image/webp' };
// Every request logged, as in production: the service's request line is part of what it costs.
const SERVICE_ENV = { LOG_LEVEL: 'info' };

type FileKey = 'small' | 'big' | 'rendition';

interface Contender {
  name: string;
  urls: Partial<Record<FileKey, string>>;
  /** the ETag this contender gave the 100 KB file, sent back as If-None-Match */
  etag?: string;
  /** request lines the service has logged so far (the service's contenders) */
  requestLines?: () => Promise<number>;
  /** the service's log, nginx's error log: what they say is shown when an answer was not 2xx or 3xx */
  logs: string[];
}

interface Run {
  contender: Contender;
  file: FileKey;
  results: WrkResult[];
}

interface Scenario {
  name: string;
  revalidate: boolean;
  /** the figure compared: bytes a second for the big file, requests a second otherwise */
  figure: (r: WrkResult) => number;
  unit: string;
  /** measured back to back within a group; groups take turns, starting with another one each round */
  groups: Run[][];
  comparisons: Comparison[];
}

interface Comparison {
  of: Run;
  to: Run;
  target?: number;
  /** the row's name; default `{of} / {to}` */
  name?: string;
}

/**
 * The service against nginx with as many workers as it has processes (1 and WEB_CONCURRENCY=2, as
 * `web` and as `npm start`), a bare Node server sending from memory, nginx in front of `web` in
 * X-Accel-Redirect mode, and a cached 640 px WebP rendition against its original on the same
 * service: wrk in interleaved rounds, each ratio the median of the rounds' own ratios.
 */
export async function run(): Promise<{ title: string; rows: BenchRow[] }> {
  if (!hasNginx() || !hasWrk()) throw new Error('the serve bench needs nginx and wrk on PATH (Debian: apt-get install nginx wrk)');
  const service = await startService(SERVICE_ENV);
  const services: BenchService[] = [service];
  const webs: BenchWeb[] = [];
  try {
    // A real photo-like JPEG, so the rendition is a real decode and resize; the 10 MB file is a PNG-typed body.
    const uploaded: Record<'small' | 'big', Buffer> = { small: await realJpeg(100 * KB), big: imageChunk(10 * MB) };
    const names = await uploadAll(service, uploaded);
    // The service may rewrite what it stores (metadata removal): the baselines send what it sends.
    const bytes = { small: (await get(`${service.url}/u/bench/${names.small}`)).body, big: (await get(`${service.url}/u/bench/${names.big}`)).body };
    const onPath = (base: string, files = names): Contender['urls'] => ({ small: `${base}/u/bench/${files.small}`, big: `${base}/u/bench/${files.big}` });
    const withRendition = (urls: Contender['urls']) => ({ ...urls, rendition: `${urls.small}?${RENDITION.query}` });

    // The same bytes under the same names and paths for the baselines.
    const copies = await tempDir('hfs-bench-static-');
    for (const key of ['small', 'big'] as const) await writeFile(path.join(copies.dir, names[key]), bytes[key]);
    const nginx1 = await launchNginx((port) => staticServer(port, copies.dir, ACCESS_LOG), 1);
    const nginx2 = await launchNginx((port) => staticServer(port, copies.dir, ACCESS_LOG), PROCESSES);
    const memoryPort = await freePort();
    const memory = await startProcess('scripts/bench/lib/memory-file-server.ts', { PORT: String(memoryPort), FILES_DIR: copies.dir }, 'ready');
    const web1 = await startWebProcess(service);
    webs.push(web1);
    const web2 = await startWebProcess(service, { WEB_CONCURRENCY: String(PROCESSES) });
    webs.push(web2);
    // nginx in front of a web process in X-Accel-Redirect mode, configured by the documented file.
    const offloadWeb = await startWebProcess(service, { FILE_OFFLOAD: 'x-accel-redirect', TRUST_PROXY: 'true' });
    webs.push(offloadWeb);
    const front = await launchNginx(
      (port) => exampleConfig({ listenPort: port, upstreamPorts: [Number(new URL(offloadWeb.url).port)], dataDir: service.env.DATA_DIR!, accessLog: ACCESS_LOG }),
      1,
    );
    // `npm start` with its web in two processes: a service of its own, with the same files.
    const service2 = await startService({ ...SERVICE_ENV, WEB_CONCURRENCY: String(PROCESSES) });
    services.push(service2);
    const names2 = await uploadAll(service2, uploaded);

    const db = service.database;
    const logged = (c: Contender, logFile: string) => ({ ...c, requestLines: requestLogCounter(logFile), logs: [...c.logs, logFile] });
    const c = {
      nginx1: contender('nginx, 1 worker', onPath(nginx1.url), logsOf(nginx1)),
      nginx2: contender(`nginx, ${PROCESSES} workers`, onPath(nginx2.url), logsOf(nginx2)),
      bare: contender('bare Node', onPath(`http://127.0.0.1:${memoryPort}`)),
      web1: logged(contender(`web (${db}), 1 process`, withRendition(onPath(web1.url))), web1.logFile),
      web2: logged(contender(`web (${db}), WEB_CONCURRENCY=${PROCESSES}`, withRendition(onPath(web2.url))), web2.logFile),
      start1: logged(contender(`npm start (${db}), 1 process`, onPath(service.url)), service.logFile),
      start2: logged(contender(`npm start (${db}), WEB_CONCURRENCY=${PROCESSES}`, onPath(service2.url, names2)), service2.logFile),
      // Its requests are in the web's log; what went wrong between the two in nginx's.
      behind: logged(contender('nginx + web (X-Accel-Redirect)', onPath(front.url), logsOf(front, 'hfs.access.log')), offloadWeb.logFile),
    };
    const renditionBytes = (await check(c.web1, bytes)).rendition!;
    for (const one of Object.values(c)) if (one !== c.web1) await check(one, bytes);
    const scenarios = scenariosOf(c);

    process.stdout.write(
      `  ${nginxVersion()}: sendfile on, access_log ${ACCESS_LOG} (BENCH_NGINX_ACCESS_LOG=off|on); the service at LOG_LEVEL=info` +
        ` (a log line per request, to a file); wrk -t${WRK.threads} -c${WRK.connections}, ${ROUNDS} round(s) of ${SECONDS} s` +
        ` after ${WARMUP_SECONDS} s of warm-up (BENCH_SERVE_ROUNDS, BENCH_SERVE_SECONDS, BENCH_SERVE_WARMUP_SECONDS)\n` +
        `  100 KB: a ${bytes.small.length}-byte JPEG; its ${RENDITION.query} rendition: ${renditionBytes.length} bytes\n`,
    );
    // Warm-up: every run once, unmeasured (the rendition made and each process's caches filled); and
    // a check that the service logged a line for each request it answered.
    const warmed = new Set<string>();
    for (const scenario of scenarios) {
      for (const run of scenario.groups.flat()) {
        const key = `${run.contender.name}|${run.file}|${scenario.revalidate}`;
        if (warmed.has(key)) continue;
        warmed.add(key);
        const linesBefore = await run.contender.requestLines?.();
        const result = await measure(run, scenario, WARMUP_SECONDS);
        if (linesBefore !== undefined) await expectLogLines(run, scenario, result, linesBefore);
      }
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const scenario of scenarios) {
        const { groups } = scenario;
        for (let i = 0; i < groups.length; i++) {
          const group = groups[(round + i) % groups.length]!;
          // Within a pair, who goes first alternates too.
          for (const run of round % 2 === 0 ? group : [...group].reverse()) run.results.push(await measure(run, scenario, SECONDS));
        }
        printRound(round, scenario);
      }
    }

    await stopProcess(memory);
    const rows = scenarios.flatMap(rowsOf);
    rows.push(
      { name: `100 KB JPEG, bytes per answer`, value: bytes.small.length, unit: 'bytes' },
      { name: `640 px WebP rendition (${RENDITION.query}), bytes per answer`, value: renditionBytes.length, unit: 'bytes' },
    );
    rows.push({ name: 'load average (1 min) at the end: other work on these cores', value: loadavg()[0]!, unit: '' });
    return { title: `Serving hosted files (service on ${service.database})`, rows };
  } finally {
    for (const web of webs) await web.stop();
    for (const s of services.reverse()) await s.stop();
  }
}

/** What is measured: each scenario's runs, in groups measured back to back, and its ratios. */
function scenariosOf(c: Record<'nginx1' | 'nginx2' | 'bare' | 'web1' | 'web2' | 'start1' | 'start2' | 'behind', Contender>): Scenario[] {
  const runOf = (contender: Contender, file: FileKey): Run => ({ contender, file, results: [] });
  const requests = { figure: (r: WrkResult) => r.requestsPerSec, unit: 'req/s' };

  const small = Object.fromEntries(Object.entries(c).map(([key, one]) => [key, runOf(one, 'small')])) as Record<keyof typeof c, Run>;
  const hundredKb: Scenario = {
    name: '100 KB',
    revalidate: false,
    ...requests,
    groups: Object.values(small).map((run) => [run]),
    comparisons: [
      // As many service processes as nginx workers.
      { of: small.web2, to: small.nginx2, target: 0.8 },
      { of: small.start2, to: small.nginx2, target: 0.8 },
      { of: small.web1, to: small.nginx1, target: 0.6 },
      { of: small.start1, to: small.nginx1, target: 0.6 },
      { of: small.behind, to: small.nginx1, target: 0.8 },
      { of: small.web1, to: small.bare },
      { of: small.bare, to: small.nginx1 },
      // What the second process adds, to each.
      { of: small.nginx2, to: small.nginx1 },
      { of: small.web2, to: small.web1 },
    ],
  };

  // A cached rendition against the original on the same service, measured back to back.
  const pairs = [c.web1, c.web2].map((one) => ({ plain: runOf(one, 'small'), rendition: runOf(one, 'rendition') }));
  const renditions: Scenario = {
    name: '640 px WebP rendition',
    revalidate: false,
    ...requests,
    groups: pairs.map(({ plain, rendition }) => [plain, rendition]),
    comparisons: pairs.map(({ plain, rendition }) => ({
      of: rendition,
      to: plain,
      target: 0.9,
      name: `${plain.contender.name}: rendition / original, same service`,
    })),
  };

  const big = { nginx1: runOf(c.nginx1, 'big'), bare: runOf(c.bare, 'big'), web1: runOf(c.web1, 'big'), behind: runOf(c.behind, 'big') };
  const tenMb: Scenario = {
    name: '10 MB',
    revalidate: false,
    figure: (r) => r.bytesPerSec / MB,
    unit: 'MB/s',
    groups: Object.values(big).map((run) => [run]),
    comparisons: [
      { of: big.web1, to: big.bare, target: 0.9 },
      { of: big.web1, to: big.nginx1 },
      { of: big.behind, to: big.nginx1, target: 0.8 },
      { of: big.bare, to: big.nginx1 },
    ],
  };

  const fresh = { nginx1: runOf(c.nginx1, 'small'), web1: runOf(c.web1, 'small') };
  const revalidation: Scenario = {
    name: '304 revalidation',
    revalidate: true,
    ...requests,
    groups: Object.values(fresh).map((run) => [run]),
    comparisons: [{ of: fresh.web1, to: fresh.nginx1 }],
  };
  return [hundredKb, renditions, tenMb, revalidation];
}

async function uploadAll(service: BenchService, bytes: Record<'small' | 'big', Buffer>): Promise<Record<'small' | 'big', string>> {
  const names = {
    small: await upload(service, bytes.small, 'jpeg'),
    big: await upload(service, bytes.big, 'png'),
  };
  await service.idle(); // their moderation checks and thumbnails, before anything is measured
  return names;
}

async function upload(service: BenchService, bytes: Buffer, type: 'jpeg' | 'png'): Promise<string> {
  const res = await multipartUpload(`${service.url}/api/upload?format=json`, bytes.length, { key: service.apiKey, chunk: bytes, type });
  if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${res.body}`);
  return JSON.parse(res.body).data.filename;
}

function contender(name: string, urls: Contender['urls'], logs: string[] = []): Contender {
  return { name, urls, logs };
}

/**
 * Before anything is measured: each file whole with status 200, 304 for its own ETag, and the
 * rendition (where asked for) a WebP of the asked width. Answers the rendition's bytes.
 */
async function check(c: Contender, bytes: Record<'small' | 'big', Buffer>): Promise<{ rendition?: Buffer }> {
  for (const key of ['small', 'big'] as const) {
    const url = c.urls[key]!;
    const res = await get(url);
    if (res.status !== 200 || !res.body.equals(bytes[key]) || res.headers['content-length'] !== String(bytes[key].length)) {
      throw new Error(`${c.name}: ${url} answered ${res.status} with ${res.body.length} bytes (content-length ${res.headers['content-length']}), not the ${bytes[key].length} stored`);
    }
    if (res.headers['x-accel-redirect']) throw new Error(`${c.name}: X-Accel-Redirect reached the client`);
    if (key === 'small') c.etag = res.headers.etag;
  }
  const again = await get(c.urls.small!, { 'if-none-match': c.etag ?? '' });
  if (again.status !== 304) throw new Error(`${c.name}: If-None-Match ${c.etag} answered ${again.status}, not 304`);
  if (!c.urls.rendition) return {};
  const res = await get(c.urls.rendition);
  const { default: sharp } = await import('sharp');
  const meta = res.status === 200 ? await sharp(res.body).metadata().catch(() => undefined) : undefined;
  if (res.headers['content-type'] !== RENDITION.type || meta?.width !== RENDITION.width) {
    throw new Error(
      `${c.name}: ${c.urls.rendition} answered ${res.status} ${res.headers['content-type']} ${meta ? `${meta.width} px wide` : res.body.toString().slice(0, 300)}, ` +
        `not a ${RENDITION.width} px ${RENDITION.type}: image renditions are not in this build (shared/services/media/renditions)`,
    );
  }
  return { rendition: res.body };
}

/**
 * A few requests one after the other, each on a new connection (which a cluster hands to its next
 * process), right before wrk's 64 connections arrive at once: every process has looked the file up
 * within the lookup cache's lifetime (10 s). Cold, each of the 64 would wait for a query of its own
 * and take a database connection for it: 20 a process, past PostgreSQL's max_connections with the
 * bench's eight processes and other work on the server.
 */
async function prime(c: Contender, file: FileKey) {
  const url = c.urls[file]!;
  for (let answered = 0, tries = 0; answered < 2 * PROCESSES; tries++) {
    const res = await get(url, {}, false);
    if (res.status === 200) answered += 1;
    else if (tries >= 20) throw new Error(`${c.name}: ${url} answered ${res.status}`);
    // A 503 is the database refusing a connection for a moment on a busy machine.
    else await new Promise((r) => setTimeout(r, 250));
  }
}

async function measure(run: Run, scenario: Scenario, seconds: number, again = true): Promise<WrkResult> {
  const { contender: c, file } = run;
  const headers = scenario.revalidate ? { 'If-None-Match': c.etag! } : undefined;
  await prime(c, file);
  const result = await runWrk(c.urls[file]!, { seconds, ...WRK, ...(headers ? { headers } : {}) }).catch((err: Error) => {
    throw new Error(`${c.name}, ${scenario.name}: ${err.message}`);
  });
  // A few are printed with the round (on a machine shared with other work, PostgreSQL may refuse a
  // connection for a moment: 503). More, and the figure is not one of serving files: measured once
  // more, then the bench stops with what the logs say.
  if (result.badStatus > result.requests / 100) {
    const said = await Promise.all(c.logs.map(async (log) => `${log}:\n${await complaints(log)}`));
    const what = `${c.name}, ${scenario.name}: ${result.badStatus} of ${result.requests} answers other than 2xx/3xx`;
    if (!again) throw new Error(`${what}; the logs say:\n${said.join('\n')}`);
    process.stdout.write(`    ${what}: measured again; the logs say:\n${said.join('\n').replace(/^/gm, '      ')}\n`);
    return measure(run, scenario, seconds, false);
  }
  return result;
}

/** The service's log must hold a request line per answer (the async writer's last lines given a moment). */
async function expectLogLines(run: Run, scenario: Scenario, result: WrkResult, before: number) {
  let lines = 0;
  for (let tries = 0; tries < 20 && lines < result.requests; tries++) {
    await new Promise((r) => setTimeout(r, 100));
    lines = (await run.contender.requestLines!()) - before;
  }
  if (lines < result.requests) {
    throw new Error(`${run.contender.name}, ${scenario.name}: ${lines} request lines logged for ${result.requests} requests answered: the service must log every request here (LOG_LEVEL=info)`);
  }
}

function label(run: Run): string {
  return run.file === 'rendition' ? `${run.contender.name}, rendition` : run.contender.name;
}

function printRound(round: number, scenario: Scenario) {
  process.stdout.write(`  round ${round + 1}, ${scenario.name}:\n`);
  for (const run of scenario.groups.flat()) {
    const r = run.results[round]!;
    const errors = `${r.socketErrors > 0 ? `, ${r.socketErrors} socket errors` : ''}${r.badStatus > 0 ? `, ${r.badStatus} answers not 2xx/3xx` : ''}`;
    process.stdout.write(
      `    ${label(run).padEnd(48)} ${scenario.figure(r).toFixed(0).padStart(6)} ${scenario.unit}  p50 ${r.p50Ms.toFixed(2)} ms  p99 ${r.p99Ms.toFixed(2)} ms${errors}\n`,
    );
  }
  const ratios = scenario.comparisons.map((cmp) => `${nameOf(cmp)} ${(scenario.figure(cmp.of.results[round]!) / scenario.figure(cmp.to.results[round]!)).toFixed(2)}`);
  process.stdout.write(`    ${ratios.join('; ')}\n`);
}

function nameOf(cmp: Comparison): string {
  return cmp.name ?? `${label(cmp.of)} / ${label(cmp.to)}`;
}

/** Medians of the rounds; each ratio the median of the rounds' own ratios (printed round by round). */
function rowsOf(scenario: Scenario): BenchRow[] {
  const figures = (run: Run) => run.results.map(scenario.figure);
  const rows: BenchRow[] = [];
  for (const run of scenario.groups.flat()) {
    const name = `${scenario.name}, ${label(run)}${run.file === 'small' && scenario.name.includes('rendition') ? ', original' : ''}`;
    rows.push(
      { name, value: median(figures(run)), unit: scenario.unit },
      { name: `${name} p50`, value: median(run.results.map((r) => r.p50Ms)), unit: 'ms' },
      { name: `${name} p99`, value: median(run.results.map((r) => r.p99Ms)), unit: 'ms' },
    );
  }
  for (const cmp of scenario.comparisons) {
    const ratios = figures(cmp.of).map((value, round) => value / figures(cmp.to)[round]!);
    process.stdout.write(`  ${scenario.name}, ${nameOf(cmp)}, by round: ${ratios.map((r) => r.toFixed(2)).join(' ')}\n`);
    rows.push({
      name: `${scenario.name}, ${nameOf(cmp)}`,
      value: median(ratios),
      unit: 'ratio',
      ...(cmp.target ? { target: ['>=', cmp.target] as ['>=', number] } : {}),
    });
  }
  return rows;
}
