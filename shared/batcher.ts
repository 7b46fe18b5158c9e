/** What a batch run answers for each item it was given, in order. */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

interface Waiting<T, R> {
  item: T;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

export interface BatcherOptions {
  /** A bound on one run's size (one statement's parameters, one pipeline); the rest go next. */
  maxBatch?: number;
  /**
   * Milliseconds a run that would start at once (none in flight for its key) waits first, so that
   * items arriving meanwhile join it; asked at each such start. 0: it starts after this turn of
   * the event loop.
   */
  linger?: () => number;
}

/**
 * Batches per key: at most one run per key is in flight, and every item that arrives for that key
 * meanwhile goes into the next run, as one batch. Under load this turns many round trips into one
 * without ever answering from before an item arrived (a run starts after all of its items came):
 * - group commit: writes that contend for one row (an account's usage counters) wait here, not on
 *   the row lock, and share one statement and one commit (PostgreSQL spent 0.34 ms per charge one
 *   by one, 0.14 in batches of four, and over 1 ms with 32 waiting on the row);
 * - shared lookups: requests that present the same key at the same time share one query.
 */
export class Batcher<T, R> {
  private readonly waiting = new Map<string, Waiting<T, R>[]>();
  private readonly running = new Set<string>();
  private readonly maxBatch: number;
  private readonly linger: () => number;

  constructor(
    private readonly run: (key: string, items: T[]) => Promise<Outcome<R>[]>,
    { maxBatch = 256, linger = () => 0 }: BatcherOptions = {},
  ) {
    this.maxBatch = maxBatch;
    this.linger = linger;
  }

  submit(key: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.waiting.get(key);
      if (queue) return void queue.push({ item, resolve, reject });
      this.waiting.set(key, [{ item, resolve, reject }]);
      if (this.running.has(key)) return;
      // Everything this turn of the event loop (or the linger) submits for the key joins the first run.
      const lingerMs = this.linger();
      if (lingerMs > 0) setTimeout(() => void this.flush(key), lingerMs);
      else setImmediate(() => void this.flush(key));
    });
  }

  private async flush(key: string): Promise<void> {
    const queue = this.waiting.get(key);
    if (!queue) return;
    const batch = queue.splice(0, this.maxBatch);
    if (queue.length === 0) this.waiting.delete(key);
    this.running.add(key);
    try {
      const outcomes = await this.run(key, batch.map((w) => w.item));
      batch.forEach((w, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) w.resolve(outcome.value);
        else w.reject(outcome.error);
      });
    } catch (err) {
      for (const w of batch) w.reject(err);
    } finally {
      this.running.delete(key);
      // What arrived during this run has waited long enough: it goes now, as the next batch.
      if (this.waiting.has(key)) void this.flush(key);
    }
  }
}

/** Runs `fn` on each item one after another, recording each outcome instead of stopping at a failure. */
export async function oneByOne<T, R>(items: T[], fn: (item: T) => Promise<R>): Promise<Outcome<R>[]> {
  const outcomes: Outcome<R>[] = [];
  for (const item of items) {
    try {
      outcomes.push({ ok: true, value: await fn(item) });
    } catch (error) {
      outcomes.push({ ok: false, error });
    }
  }
  return outcomes;
}
