import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { redisWithin, type Health } from '../shared/dependency-health.js';
import { type JobQueues, QUEUE_NAMES } from '../shared/jobs.js';

const JOB_STATES = ['waiting', 'prioritized', 'active', 'delayed', 'failed'] as const;
// Seconds; uploads of hundreds of megabytes and event streams run for minutes.
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120, 600];

// Facts of the process (CPU, memory, GC, event-loop delay) and its requests: one set per process,
// however many apps it builds (the tests build many).
let processMetrics: { registry: Registry; requests: Histogram<'method' | 'route' | 'status'> } | undefined;

function ofProcess() {
  if (processMetrics) return processMetrics;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Histogram({
    name: 'hfs_http_request_duration_seconds',
    help: 'Time from a request to the first byte of its answer, by route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  processMetrics = { registry, requests };
  return processMetrics;
}

/**
 * What `GET /metrics` shows, in Prometheus' text format: the process's own metrics and, given the job
 * queues, their depths, read from Redis when scraped (so they cover the worker processes too).
 */
export class WebMetrics {
  private readonly queues = new Registry();

  constructor(jobs?: JobQueues, health?: Health, bodies?: { readonly size: number }) {
    if (bodies) {
      new Gauge({
        name: 'hfs_file_body_cache_bytes',
        help: 'Bytes of small hot files this process holds in memory (at most FILE_MEMORY_CACHE_BYTES)',
        registers: [this.queues],
        collect() {
          this.set(bodies.size);
        },
      });
    }
    if (health) {
      new Gauge({
        name: 'hfs_dependency_up',
        help: 'Whether this process last reached the dependency (1) or not (0)',
        labelNames: ['dependency'] as const,
        registers: [this.queues],
        collect() {
          for (const dependency of [health.redis, health.postgres]) this.set({ dependency: dependency.dependency }, dependency.isDown ? 0 : 1);
        },
      });
    }
    if (!jobs) return;
    new Gauge({
      name: 'hfs_queue_jobs',
      help: 'Jobs in each queue, by state',
      labelNames: ['queue', 'state'] as const,
      registers: [this.queues],
      async collect() {
        this.reset();
        // While Redis is out of reach /metrics still answers at once, without queue depths.
        const counts = await redisWithin(Promise.all(QUEUE_NAMES.map((name) => jobs.queue(name).getJobCounts(...JOB_STATES))), 1000, 'queue depths').catch(
          () => undefined,
        );
        if (!counts) return;
        QUEUE_NAMES.forEach((queue, i) => {
          for (const state of JOB_STATES) this.set({ queue, state }, counts[i]![state] ?? 0);
        });
      },
    });
  }

  /** Records one answered request; `route` is the pattern that matched (never the raw path). */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    ofProcess().requests.observe({ method, route, status: String(status) }, seconds);
  }

  async render(): Promise<{ contentType: string; text: string }> {
    const registries = [ofProcess().registry, this.queues];
    const texts = await Promise.all(registries.map((registry) => registry.metrics()));
    return { contentType: Registry.PROMETHEUS_CONTENT_TYPE, text: texts.join('\n') };
  }
}
