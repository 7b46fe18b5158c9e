/** What a batch run answers for each item it was given, in order. */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

interface Waiting<T, R> {
  item: T;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Batches per key: at most one run per key is in flight, and every item that arrives for that key
 * meanwhile goes into the next run, as one batch. Alone, an item goes after this turn of the event
 * loop; it never waits for company, and no run answers from before its items arrived.
 */
export class Batcher<T, R> {
  private readonly waiting = new Map<string, Waiting<T, R>[]>();
  private readonly running = new Set<string>();

  constructor(
    private readonly run: (key: string, items: T[]) => Promise<Outcome<R>[]>,
    /** A bound on one run's size (one statement's parameters); the rest go next. */
    private readonly maxBatch = 256,
  ) {}

  submit(key: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.waiting.get(key);
      if (queue) return void queue.push({ item, resolve, reject });
      this.waiting.set(key, [{ item, resolve, reject }]);
      if (this.running.has(key)) return;
      // Everything this turn of the event loop submits for the key joins the first run.
      setImmediate(() => void this.flush(key));
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
