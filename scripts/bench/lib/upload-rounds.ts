import { Agent } from 'node:http';
import { concurrently, median, multipartUpload, percentile } from './load.js';

// Interleaved rounds of small uploads for the upload bench: contenders, their rounds, their figures.

/** Uploads in flight at once in every round. */
export const CONCURRENCY = 32;

/** The median over rounds of `a[round] / b[round]`. */
export function pairedRatio(a: number[], b: number[]): number {
  return median(a.map((value, round) => value / b[round]!));
}

/** Each contender's figure of every round, in the order the rounds ran: the spread behind a median. */
export function printRounds(title: string, rounds: Record<string, number[]>, figure: (value: number) => number, digits = 0) {
  const lines = Object.entries(rounds).map(([name, values]) => `${name} ${values.map((v) => figure(v).toFixed(digits)).join(' ')}`);
  process.stdout.write(`  ${title}: ${lines.join('; ')}\n`);
}

export interface SmallContender {
  name: string;
  url: string;
  key?: string;
  body: { chunk: Buffer; type: 'png' | 'jpeg' };
  /** its queues empty: what its uploads queued is done */
  idle?: () => Promise<void>;
  /** stops and restarts its background processes around a measured round (work on other cores) */
  aside?: { stop(): void; resume(): void };
  /** per round: uploads a second, the round's own p99 / p50, and the seconds until its queued work was done */
  rps: number[];
  tails: number[];
  catchUp: number[];
  latencies: number[];
}

export function smallContender(name: string, url: string, body: SmallContender['body'], service?: { apiKey: string; idle(): Promise<void> }): SmallContender {
  return { name, url, body, ...(service ? { key: service.apiKey, idle: () => service.idle() } : {}), rps: [], tails: [], catchUp: [], latencies: [] };
}

/**
 * 100 KB uploads, CONCURRENCY at once, in interleaved rounds of `perRound` after `warmup` unmeasured
 * ones each. Rounds alternate who goes first; none starts before every contender's queues are empty
 * (the time the last one took to empty its own is its catch-up), and nobody's files are deleted
 * until all rounds are done: ext4 skips inodes freed in the last minutes when it creates files, so
 * whoever ran right after a mass delete would pay for it.
 */
export async function smallRounds(title: string, contenders: SmallContender[], rounds: number, perRound: number, warmup: number) {
  const allIdle = () => Promise.all(contenders.map((c) => c.idle?.()));
  const measure = async (contender: SmallContender, total: number) => {
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    let failure: string | undefined;
    const call = async () => {
      const res = await multipartUpload(contender.url, contender.body.chunk.length, { ...contender.body, agent, ...(contender.key ? { key: contender.key } : {}) });
      if (res.status !== 200) failure ??= `${res.status} ${res.body.slice(0, 500)}`;
      return res;
    };
    const result = await concurrently(total, CONCURRENCY, call);
    agent.destroy();
    if (result.failures > 0) throw new Error(`${contender.name}: ${result.failures} small uploads failed at ${contender.url}, the first with ${failure}`);
    return result;
  };
  for (const contender of contenders) await measure(contender, warmup);
  await allIdle();
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < contenders.length; i++) {
      const contender = contenders[(round + i) % contenders.length]!;
      contender.aside?.stop();
      const result = await measure(contender, perRound).finally(() => contender.aside?.resume());
      contender.rps.push(perRound / result.seconds);
      contender.tails.push(percentile(result.latencies, 99) / percentile(result.latencies, 50));
      contender.latencies.push(...result.latencies);
      const ended = performance.now();
      await contender.idle?.();
      contender.catchUp.push((performance.now() - ended) / 1000);
      await allIdle();
    }
    const figures = contenders.map((c) => `${c.name} ${c.rps[round]!.toFixed(0)} req/s${c.idle ? ` (queues empty ${c.catchUp[round]!.toFixed(1)} s later)` : ''}`);
    process.stdout.write(`  ${title}, round ${round + 1}: ${figures.join('; ')}\n`);
  }
}
