import { writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import { exampleConfig, hasNginx, nginxVersion, startNginx, type RunningNginx } from '../lib/nginx.js';
import { onCleanup } from './lib/cleanup.js';
import { imageChunk, median, multipartUpload } from './lib/load.js';
import { type BenchService, type BenchWeb, freePort, startProcess, startService, startWebProcess, stopProcess, tempDir } from './lib/processes.js';
import { hasWrk, runWrk, type WrkResult } from './lib/wrk.js';
import type { BenchRow } from './report.js';

const KB = 1024;
const MB = 1024 * 1024;
// A few minutes in all: (warm-up + rounds × seconds) per contender and scenario.
const SECONDS = Number(process.env.BENCH_SERVE_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_SERVE_ROUNDS ?? 3);
const WARMUP_SECONDS = Number(process.env.BENCH_SERVE_WARMUP_SECONDS ?? 2);
// On, as a default server logs; the service logs no request line at LOG_LEVEL=warn.
const ACCESS_LOG = process.env.BENCH_NGINX_ACCESS_LOG === 'off' ? 'off' : 'on';
const WRK = { threads: 2, connections: 64 };

type FileKey = 'small' | 'big';
type Kind = 'nginx' | 'bare-node' | 'service' | 'behind-nginx';
interface Scenario {
  name: string;
  file: FileKey;
  revalidate: boolean;
  /** the figure compared: bytes a second for the big file, requests a second otherwise */
  figure: (r: WrkResult) => number;
  unit: string;
  /** the README's targets, by `{contender kind}/{baseline kind}` */
  targets: Partial<Record<`${Kind}/${Kind}`, number>>;
}
const SCENARIOS: Scenario[] = [
  {
    name: '100 KB',
    file: 'small',
    revalidate: false,
    figure: (r) => r.requestsPerSec,
    unit: 'req/s',
    targets: { 'service/nginx': 0.6, 'behind-nginx/nginx': 0.8 },
  },
  {
    name: '10 MB',
    file: 'big',
    revalidate: false,
    figure: (r) => r.bytesPerSec / MB,
    unit: 'MB/s',
    targets: { 'service/bare-node': 0.9, 'behind-nginx/nginx': 0.8 },
  },
  { name: '304 revalidation', file: 'small', revalidate: true, figure: (r) => r.requestsPerSec, unit: 'req/s', targets: {} },
];

interface Contender {
  name: string;
  kind: Kind;
  urls: Record<FileKey, string>;
  /** the ETag this contender gave the 100 KB file, sent back as If-None-Match */
  etag?: string;
  results: Map<Scenario, WrkResult[]>;
}

/**
 * nginx, a bare Node server sending from memory, the service (as `npm start` runs it and as `web`)
 * and nginx in front of the service in X-Accel-Redirect mode, under wrk in alternating rounds.
 */
export async function run(): Promise<{ title: string; rows: BenchRow[] }> {
  if (!hasNginx() || !hasWrk()) throw new Error('the serve bench needs nginx and wrk on PATH (Debian: apt-get install nginx wrk)');
  const service = await startService();
  const webs: BenchWeb[] = [];
  const nginxes: RunningNginx[] = [];
  try {
    const bytes: Record<FileKey, Buffer> = { small: imageChunk(100 * KB), big: imageChunk(10 * MB) };
    const names = { small: await upload(service, bytes.small), big: await upload(service, bytes.big) };
    await service.idle(); // their moderation checks, before anything is measured
    const onPath = (base: string) => ({ small: `${base}/u/bench/${names.small}`, big: `${base}/u/bench/${names.big}` });

    // The same bytes under the same names and paths for the baselines.
    const copies = await tempDir('hfs-bench-static-');
    for (const key of ['small', 'big'] as const) await writeFile(path.join(copies.dir, names[key]), bytes[key]);
    const nginxPort = await freePort();
    nginxes.push(await launchNginx(nginxPort, staticServer(nginxPort, copies.dir)));
    const memoryPort = await freePort();
    const memory = await startProcess('scripts/bench/lib/memory-file-server.ts', { PORT: String(memoryPort), FILES_DIR: copies.dir }, 'ready');
    webs.push(await startWebProcess(service));

    const contenders: Contender[] = [
      contender('nginx', 'nginx', onPath(nginxes[0]!.url)),
      contender('bare Node', 'bare-node', onPath(`http://127.0.0.1:${memoryPort}`)),
      contender('service (npm start)', 'service', onPath(service.url)),
      contender(`service (web, ${service.database})`, 'service', onPath(webs[0]!.url)),
    ];
    // nginx in front of a web process in X-Accel-Redirect mode, configured by the documented file.
    const offloadWeb = await startWebProcess(service, { FILE_OFFLOAD: 'x-accel-redirect', TRUST_PROXY: 'true' });
    webs.push(offloadWeb);
    const offloads = (await get(onPath(offloadWeb.url).small)).headers['x-accel-redirect'] !== undefined;
    if (offloads) {
      const port = await freePort();
      const http = await exampleConfig({ listenPort: port, upstreamPorts: [Number(new URL(offloadWeb.url).port)], dataDir: service.env.DATA_DIR!, accessLog: ACCESS_LOG });
      nginxes.push(await launchNginx(port, http));
      contenders.push(contender('nginx + web (X-Accel-Redirect)', 'behind-nginx', onPath(nginxes[1]!.url)));
    } else {
      process.stdout.write('  nginx + web (X-Accel-Redirect): not measured, the service answered without X-Accel-Redirect (FILE_OFFLOAD not in this build)\n');
    }
    for (const c of contenders) await check(c, bytes);

    process.stdout.write(
      `  ${nginxVersion()}: worker_processes 1 (the service is one Node process), sendfile on, access_log ${ACCESS_LOG}` +
        ` (BENCH_NGINX_ACCESS_LOG=off|on); wrk -t${WRK.threads} -c${WRK.connections}, ${ROUNDS} round(s) of ${SECONDS} s` +
        ` after ${WARMUP_SECONDS} s of warm-up (BENCH_SERVE_ROUNDS, BENCH_SERVE_SECONDS, BENCH_SERVE_WARMUP_SECONDS)\n`,
    );
    for (const c of contenders) for (const scenario of SCENARIOS) await measure(c, scenario, WARMUP_SECONDS);
    // Each round takes every scenario in turn, and its contenders back to back, starting with another one each round.
    for (let round = 0; round < ROUNDS; round++) {
      for (const scenario of SCENARIOS) {
        for (let i = 0; i < contenders.length; i++) {
          const c = contenders[(round + i) % contenders.length]!;
          c.results.get(scenario)!.push(await measure(c, scenario, SECONDS));
        }
        printRound(round, scenario, contenders);
      }
    }

    await stopProcess(memory);
    return { title: `Serving hosted files (service on ${service.database})`, rows: SCENARIOS.flatMap((scenario) => rowsOf(scenario, contenders)) };
  } finally {
    for (const nginx of nginxes) await nginx.stop();
    for (const web of webs) await web.stop();
    await service.stop();
  }
}

async function upload(service: BenchService, bytes: Buffer): Promise<string> {
  const res = await multipartUpload(`${service.url}/api/upload?format=json`, bytes.length, { key: service.apiKey, chunk: bytes });
  if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${res.body}`);
  return JSON.parse(res.body).data.filename;
}

function contender(name: string, kind: Kind, urls: Record<FileKey, string>): Contender {
  return { name, kind, urls, results: new Map(SCENARIOS.map((scenario) => [scenario, []])) };
}

/** A server block as a default static server has it: the copies under the service's own paths. */
function staticServer(port: number, dir: string): string {
  return `server {
    listen 127.0.0.1:${port};
    ${ACCESS_LOG === 'off' ? 'access_log off;' : ''}
    sendfile on;
    tcp_nopush on;
    location /u/bench/ { alias ${dir}/; }
  }`;
}

async function launchNginx(port: number, http: string): Promise<RunningNginx> {
  const nginx = await startNginx({ port, http, workerProcesses: 1, parent: (await tempDir('hfs-bench-nginx-')).dir });
  onCleanup(() => nginx.stop());
  return nginx;
}

/** Before anything is measured: each file whole with status 200, and 304 for its own ETag. */
async function check(c: Contender, bytes: Record<FileKey, Buffer>) {
  for (const key of ['small', 'big'] as const) {
    const res = await get(c.urls[key]);
    if (res.status !== 200 || !res.body.equals(bytes[key]) || res.headers['content-length'] !== String(bytes[key].length)) {
      throw new Error(`${c.name}: ${c.urls[key]} answered ${res.status} with ${res.body.length} bytes (content-length ${res.headers['content-length']}), not the ${bytes[key].length} uploaded`);
    }
    if (res.headers['x-accel-redirect']) throw new Error(`${c.name}: X-Accel-Redirect reached the client`);
    if (key === 'small') c.etag = res.headers.etag;
  }
  const again = await get(c.urls.small, { 'if-none-match': c.etag ?? '' });
  if (again.status !== 304) throw new Error(`${c.name}: If-None-Match ${c.etag} answered ${again.status}, not 304`);
}

/**
 * A plain GET, as wrk sends it. Not fetch(): it adds `Cache-Control: no-cache` to conditional
 * requests, and the service rightly answers those with the whole file.
 */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string | undefined>, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function measure(c: Contender, scenario: Scenario, seconds: number): Promise<WrkResult> {
  const headers = scenario.revalidate ? { 'If-None-Match': c.etag! } : undefined;
  const result = await runWrk(c.urls[scenario.file], { seconds, ...WRK, ...(headers ? { headers } : {}) }).catch((err: Error) => {
    throw new Error(`${c.name}, ${scenario.name}: ${err.message}`);
  });
  if (result.badStatus > 0) throw new Error(`${c.name}, ${scenario.name}: ${result.badStatus} answers other than 2xx/3xx`);
  return result;
}

function printRound(round: number, scenario: Scenario, contenders: Contender[]) {
  const at = (c: Contender) => c.results.get(scenario)![round]!;
  process.stdout.write(`  round ${round + 1}, ${scenario.name}:\n`);
  for (const c of contenders) {
    const r = at(c);
    const ratios = baselines(contenders)
      .filter((base) => base !== c)
      .map((base) => `${(scenario.figure(r) / scenario.figure(at(base))).toFixed(2)} of ${base.name}`);
    const errors = r.socketErrors > 0 ? `, ${r.socketErrors} socket errors` : '';
    process.stdout.write(
      `    ${c.name.padEnd(32)} ${scenario.figure(r).toFixed(0).padStart(6)} ${scenario.unit}  p50 ${r.p50Ms.toFixed(2)} ms  p99 ${r.p99Ms.toFixed(2)} ms${errors}${ratios.length ? `  (${ratios.join(', ')})` : ''}\n`,
    );
  }
}

/** Medians of the rounds; each ratio the median of the rounds' own ratios. */
function rowsOf(scenario: Scenario, contenders: Contender[]): BenchRow[] {
  const figures = (c: Contender) => c.results.get(scenario)!.map(scenario.figure);
  const ratio = (c: Contender, base: Contender) => median(figures(c).map((value, round) => value / figures(base)[round]!));
  const rows: BenchRow[] = [];
  for (const c of contenders) {
    const results = c.results.get(scenario)!;
    rows.push(
      { name: `${scenario.name}, ${c.name}`, value: median(figures(c)), unit: scenario.unit },
      { name: `${scenario.name}, ${c.name} p50`, value: median(results.map((r) => r.p50Ms)), unit: 'ms' },
      { name: `${scenario.name}, ${c.name} p99`, value: median(results.map((r) => r.p99Ms)), unit: 'ms' },
    );
  }
  const [nginx, bareNode] = baselines(contenders);
  for (const c of contenders) {
    for (const base of [nginx, bareNode]) {
      // Each baseline against the other once: bare Node / nginx.
      if (c === base || (c === nginx && base === bareNode)) continue;
      const target = scenario.targets[`${c.kind}/${base.kind}`];
      rows.push({ name: `${scenario.name}, ${c.name} / ${base.name}`, value: ratio(c, base), unit: 'ratio', ...(target ? { target: ['>=', target] as ['>=', number] } : {}) });
    }
  }
  return rows;
}

function baselines(contenders: Contender[]): [Contender, Contender] {
  return [contenders.find((c) => c.kind === 'nginx')!, contenders.find((c) => c.kind === 'bare-node')!];
}
