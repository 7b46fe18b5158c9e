import { percentile } from '../load.js';

/**
 * One line of the soak's CSV: a process's RSS (`rss-collected`: right after a full collection), a web
 * process's V8 heap in use (`heap`), the heap V8 has committed (`committed`), its memory outside that
 * heap, Buffers included (`external`), the part of that its hot-file body cache holds (`cache`; each
 * in the heap_mb column), or one route's requests in one window.
 */
export interface Sample {
  /** seconds since the traffic started */
  t: number;
  kind: 'rss' | 'rss-collected' | 'heap' | 'committed' | 'external' | 'cache' | 'route';
  /** the process (web-1, worker, …) or the route (serve-hot, upload-tus, …) */
  name: string;
  rssMb?: number;
  heapMb?: number;
  count?: number;
  p50Ms?: number;
  p99Ms?: number;
  maxMs?: number;
  errors5xx?: number;
  unexpected?: number;
}

export const CSV_HEADER = 't_s,kind,name,rss_mb,heap_mb,count,p50_ms,p99_ms,max_ms,errors_5xx,unexpected';

export function csvLine(s: Sample): string {
  const n = (v: number | undefined, digits = 1) => (v === undefined ? '' : v.toFixed(digits));
  return [n(s.t), s.kind, s.name, n(s.rssMb), n(s.heapMb), s.count ?? '', n(s.p50Ms), n(s.p99Ms), n(s.maxMs), s.errors5xx ?? '', s.unexpected ?? ''].join(',');
}

interface RouteTotals {
  count: number;
  errors5xx: number;
  unexpected: number;
  /** latencies after the warm-up, for the run's p99 */
  settled: number[];
}

const PROBLEMS_KEPT = 40;

/**
 * Every request's route, status and latency: per window (the CSV's route samples, the plot) and per
 * run (after the warm-up). An answer the traffic did not expect, and anything else that went wrong
 * on the client's side, is kept as evidence (the first few of each route).
 */
export class Recorder {
  readonly samples: Sample[] = [];
  readonly totals = new Map<string, RouteTotals>();
  readonly problems: string[] = [];
  /** GETs sent once more after their connection failed before any answer, with the first few errors */
  readonly retries: string[] = [];
  retryCount = 0;
  private readonly problemsPerRoute = new Map<string, number>();
  private window = new Map<string, { latencies: number[]; errors5xx: number; unexpected: number }>();
  private began = performance.now();

  constructor(private readonly warmupSeconds: number) {}

  /** The traffic starts now: the time of samples and the warm-up count from here (what came before, setup, still counts in the totals). */
  begin(): void {
    this.began = performance.now();
    this.window = new Map();
  }

  /** Seconds since the traffic started. */
  now(): number {
    return (performance.now() - this.began) / 1000;
  }

  request(route: string, status: number, ms: number, expected: boolean, what = ''): void {
    const total = this.totalsOf(route);
    const window = this.window.get(route) ?? { latencies: [], errors5xx: 0, unexpected: 0 };
    this.window.set(route, window);
    total.count += 1;
    window.latencies.push(ms);
    if (this.now() >= this.warmupSeconds) total.settled.push(ms);
    if (status >= 500) {
      total.errors5xx += 1;
      window.errors5xx += 1;
    } else if (!expected) {
      total.unexpected += 1;
      window.unexpected += 1;
    }
    if (status >= 500 || !expected) this.problem(route, `${status || 'no answer'} ${what}`);
  }

  /** Something wrong that is not an answer's status (wrong bytes, a client error, a missed event). */
  fault(route: string, what: string): void {
    const total = this.totalsOf(route);
    total.unexpected += 1;
    const window = this.window.get(route) ?? { latencies: [], errors5xx: 0, unexpected: 0 };
    this.window.set(route, window);
    window.unexpected += 1;
    this.problem(route, what);
  }

  retried(route: string, what: string): void {
    this.retryCount += 1;
    if (this.retries.length < 10) this.retries.push(`${this.now().toFixed(0)} s ${route}: ${what.slice(0, 300)}`);
  }

  rss(name: string, bytes: number, kind: 'rss' | 'rss-collected' = 'rss'): void {
    this.samples.push({ t: this.now(), kind, name, rssMb: bytes / 1024 / 1024 });
  }

  heap(name: string, bytes: number, kind: 'heap' | 'committed' | 'external' | 'cache' = 'heap'): void {
    this.samples.push({ t: this.now(), kind, name, heapMb: bytes / 1024 / 1024 });
  }

  /** Closes the window: one sample per route that had requests in it. */
  flush(): void {
    const t = this.now();
    for (const [name, w] of this.window) {
      if (w.latencies.length === 0 && w.errors5xx + w.unexpected === 0) continue;
      this.samples.push({
        t,
        kind: 'route',
        name,
        count: w.latencies.length,
        p50Ms: percentile(w.latencies, 50),
        p99Ms: percentile(w.latencies, 99),
        maxMs: Math.max(0, ...w.latencies),
        errors5xx: w.errors5xx,
        unexpected: w.unexpected,
      });
    }
    this.window = new Map();
  }

  private totalsOf(route: string): RouteTotals {
    let total = this.totals.get(route);
    if (!total) this.totals.set(route, (total = { count: 0, errors5xx: 0, unexpected: 0, settled: [] }));
    return total;
  }

  private problem(route: string, what: string): void {
    const seen = this.problemsPerRoute.get(route) ?? 0;
    this.problemsPerRoute.set(route, seen + 1);
    if (seen < 5 && this.problems.length < PROBLEMS_KEPT) this.problems.push(`${this.now().toFixed(0)} s ${route}: ${what.slice(0, 300)}`);
  }
}

/** The least-squares slope of y over x. */
export function slope(points: readonly [number, number][]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}
