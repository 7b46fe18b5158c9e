import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { Redis } from 'ioredis';
import type { HealthRepository } from '../../repositories/health.repository.js';
import type { StorageDriver } from '../../storage/index.js';

export type CheckName = 'postgres' | 'redis' | 'storage' | 'moderation';

export type Check = { status: 'up' | 'down'; latencyMs: number; error?: string } | { status: 'disabled' };

export interface Readiness {
  status: 'ready' | 'unavailable';
  checks: Record<CheckName, Check>;
}

/** What an upload cannot do without; the moderation service only delays its checks (they queue up). */
const NEEDED_FOR_UPLOADS: readonly CheckName[] = ['postgres', 'redis', 'storage'];
const CHECK_TIMEOUT_MS = 1500;
// Probe objects live apart from `objects/`: the orphan sweep never sees them.
const PROBE_PREFIX = 'health/';

export interface ReadinessDeps {
  database: HealthRepository;
  redis: Redis;
  storage: StorageDriver;
  moderation: { enabled: boolean; visionUrl: string };
}

/**
 * Whether this process can serve uploads now: PostgreSQL, Redis and storage are each tried for real
 * (storage with a write, read back and delete), and the moderation service asked for its health, all
 * at once and each within a short timeout. Errors are reduced to a code or a line, never a stack or
 * an address.
 */
export class ReadinessService {
  // Probes asked for meanwhile share the run in flight: a burst of /readyz is one write to storage.
  private running: Promise<Readiness> | undefined;

  constructor(private readonly deps: ReadinessDeps) {}

  check(): Promise<Readiness> {
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(): Promise<Readiness> {
    const { database, redis, moderation } = this.deps;
    const [postgres, redisCheck, storage, vision] = await Promise.all([
      this.timed(() => database.ping()),
      this.timed(async () => void (await redis.ping())),
      this.timed((signal) => this.roundTrip(signal)),
      moderation.enabled ? this.timed((signal) => visionHealth(moderation.visionUrl, signal)) : Promise.resolve<Check>({ status: 'disabled' }),
    ]);
    const checks: Record<CheckName, Check> = { postgres, redis: redisCheck, storage, moderation: vision };
    const ready = NEEDED_FOR_UPLOADS.every((name) => checks[name].status === 'up');
    return { status: ready ? 'ready' : 'unavailable', checks };
  }

  /** A tiny object written, read back and deleted through the driver, as an upload would. */
  private async roundTrip(signal: AbortSignal): Promise<void> {
    const { storage } = this.deps;
    const key = `${PROBE_PREFIX}${randomUUID()}`;
    const probe = Buffer.from(key);
    await storage.put(key, Readable.from([probe]), { signal, contentType: 'text/plain' });
    try {
      const stored = await storage.get(key);
      if (!stored) throw new Error('the object just written is missing');
      if (!(await buffer(stored.body)).equals(probe)) throw new Error('the object read back differs from the one written');
    } finally {
      await storage.delete(key);
    }
  }

  /** Runs `work` within the timeout (a late answer is ignored), with its latency and what went wrong. */
  private async timed(work: (signal: AbortSignal) => Promise<void>): Promise<Check> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const signal = AbortSignal.timeout(CHECK_TIMEOUT_MS);
    const timeout = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
    try {
      await Promise.race([work(signal), timeout]);
      return { status: 'up', latencyMs: latency() };
    } catch (err) {
      return { status: 'down', latencyMs: latency(), error: describe(err) };
    }
  }
}

async function visionHealth(visionUrl: string, signal: AbortSignal): Promise<void> {
  const res = await fetch(`${visionUrl}/health`, { signal });
  await res.body?.cancel();
  if (!res.ok) throw new Error(`answered HTTP ${res.status}`);
}

/** What went wrong in a word or a line: never a stack, an address or a connection string. */
function describe(err: unknown): string {
  let e = err;
  // drizzle and fetch wrap what the driver or the socket said.
  for (let depth = 0; e instanceof Error && e.cause instanceof Error && depth < 10; depth++) e = e.cause;
  if (!(e instanceof Error)) return 'failed';
  if (e.name === 'TimeoutError') return `no answer within ${CHECK_TIMEOUT_MS} ms`;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // S3 names its errors (NoSuchBucket, AccessDenied).
  if (e.name !== 'Error' && e.name !== 'TypeError') return e.name;
  // A message's first line, without what may name a host, a port or a URL.
  return (e.message.split('\n', 1)[0] ?? '').replace(/\S*(:\/\/|\d+\.\d+\.\d+\.\d+|:\d{2,5}\b)\S*/g, '…').slice(0, 120) || 'failed';
}
