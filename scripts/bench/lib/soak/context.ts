import type pg from 'pg';
import type { JobQueues } from '../../../../shared/jobs.js';
import type { SoakClient } from './client.js';
import type { Ledger, SoakAccount } from './ledger.js';
import type { Recorder } from './recorder.js';

/** What every traffic loop works with. */
export interface SoakContext {
  client: SoakClient;
  recorder: Recorder;
  ledger: Ledger;
  accounts: SoakAccount[];
  /** the soak's database, for what only SQL can do (bring an expiry forward) and the end checks */
  db: pg.Pool;
  jobs: JobQueues;
  admin(args: string[]): Promise<unknown>;
  /** decodable JPEGs of several sizes, some with camera metadata */
  images: Buffer[];
  /** when the traffic stops (ms since the epoch) */
  endsAt: number;
  stopping(): boolean;
}

export function pickOf<T>(items: readonly T[]): T {
  return items[Math.floor(Math.random() * items.length)]!;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `step` about every `intervalMs` (±20 %, so loops do not march in step) until the soak stops;
 * a step that throws is recorded under `route` and the loop goes on.
 */
export async function every(ctx: SoakContext, route: string, intervalMs: number, step: () => Promise<void>): Promise<void> {
  while (!ctx.stopping()) {
    const began = performance.now();
    try {
      await step();
    } catch (err) {
      ctx.recorder.fault(route, `client error: ${(err as Error).stack ?? String(err)}`);
    }
    const wait = intervalMs * (0.8 + Math.random() * 0.4) - (performance.now() - began);
    // Sleeps in short steps, so the soak stops soon after it is told to.
    for (let left = wait; left > 0 && !ctx.stopping(); left -= 250) await sleep(Math.min(250, left));
  }
}
