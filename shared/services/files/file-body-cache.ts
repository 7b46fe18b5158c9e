import type { Readable } from 'node:stream';

/** How long a request counts towards a file's admission, and how many uncached files are counted at most. */
const USES_WINDOW_MS = 60_000;
const MAX_COUNTED = 10_000;

/**
 * The bytes of small hot files, in memory, within a byte budget (least recently used first out).
 * While the budget has room every small file read is kept; once it is full, a file displaces others
 * only when it is hot, requested `minUses` times within a minute: one-off reads of the long tail are
 * streamed from storage instead, rather than each evicting a hot file and leaving garbage behind.
 * Entries are keyed by object key, and an object key's content never changes (a replace stores a new
 * object), so an entry can never hold stale bytes: whether a file may be served at all is decided by
 * its lookup, and a changed file's bytes are dropped along with its lookup (FileCache) to give the
 * memory back. The one place where a file body is held whole, on purpose: at most `maxFileBytes`.
 */
export class FileBodyCache {
  private readonly entries = new Map<string, Buffer>();
  private readonly loading = new Map<string, Promise<Buffer | undefined>>();
  /** Requests of files not held, within the current window of each. */
  private readonly uses = new Map<string, { count: number; since: number }>();
  private bytes = 0;

  constructor(
    readonly budgetBytes: number,
    readonly maxFileBytes: number,
    readonly minUses = 1,
  ) {}

  /** Bytes held right now (never more than the budget). */
  get size(): number {
    return this.bytes;
  }

  accepts(size: number): boolean {
    return size <= this.maxFileBytes && this.budgetBytes > 0;
  }

  get(objectKey: string): Buffer | undefined {
    const body = this.entries.get(objectKey);
    if (body) {
      // Re-insert: Map order is the LRU order.
      this.entries.delete(objectKey);
      this.entries.set(objectKey, body);
    }
    return body;
  }

  /**
   * The object's bytes from memory, or read once through `open` (concurrent misses share the read)
   * and kept; undefined when the object is gone or larger than it said, or not hot enough to take the
   * place of others (`size`: what its row says).
   */
  async load(objectKey: string, size: number, open: () => Promise<Readable | null>): Promise<Buffer | undefined> {
    const cached = this.get(objectKey);
    if (cached) return cached;
    let pending = this.loading.get(objectKey);
    if (!pending && !this.admits(objectKey, size)) return undefined;
    if (!pending) {
      pending = this.read(open).finally(() => this.loading.delete(objectKey));
      this.loading.set(objectKey, pending);
      void pending.then((body) => body && this.keep(objectKey, body), () => undefined);
    }
    return pending;
  }

  drop(objectKeys: readonly string[]): void {
    for (const key of objectKeys) {
      this.uses.delete(key);
      const body = this.entries.get(key);
      if (!body) continue;
      this.entries.delete(key);
      this.bytes -= body.length;
    }
  }

  /** Whether a file not held may be read in: there is room for it, or it is hot. */
  private admits(objectKey: string, size: number): boolean {
    if (this.bytes + size <= this.budgetBytes || this.minUses <= 1) return true;
    const now = Date.now();
    let use = this.uses.get(objectKey);
    if (!use || now - use.since > USES_WINDOW_MS) {
      this.uses.delete(objectKey);
      use = { count: 0, since: now };
      // Insertion order is age order: the oldest count goes first.
      if (this.uses.size >= MAX_COUNTED) this.uses.delete(this.uses.keys().next().value!);
      this.uses.set(objectKey, use);
    }
    use.count += 1;
    if (use.count < this.minUses) return false;
    this.uses.delete(objectKey);
    return true;
  }

  private async read(open: () => Promise<Readable | null>): Promise<Buffer | undefined> {
    const stream = await open();
    if (!stream) return undefined;
    const chunks: Buffer[] = [];
    let length = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      length += chunk.length;
      if (length > this.maxFileBytes) {
        stream.destroy();
        return undefined;
      }
      chunks.push(chunk);
    }
    // Always a copy of its own size: a read chunk may be a slice of a larger buffer it would pin.
    return Buffer.concat(chunks, length);
  }

  private keep(objectKey: string, body: Buffer): void {
    if (this.entries.has(objectKey) || body.length > this.maxFileBytes) return;
    this.entries.set(objectKey, body);
    this.bytes += body.length;
    for (const [key, old] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.entries.delete(key);
      this.bytes -= old.length;
    }
  }
}
