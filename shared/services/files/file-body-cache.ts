import type { Readable } from 'node:stream';

/**
 * The bytes of small hot files, in memory, within a byte budget (least recently used first out).
 * Entries are keyed by object key, and an object key's content never changes (a replace stores a new
 * object), so an entry can never hold stale bytes: whether a file may be served at all is decided by
 * its lookup, and a changed file's bytes are dropped along with its lookup (FileCache) to give the
 * memory back. The one place where a file body is held whole, on purpose: at most `maxFileBytes`.
 */
export class FileBodyCache {
  private readonly entries = new Map<string, Buffer>();
  private readonly loading = new Map<string, Promise<Buffer | undefined>>();
  private bytes = 0;

  constructor(
    readonly budgetBytes: number,
    readonly maxFileBytes: number,
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
   * and kept; undefined when the object is gone or larger than it said.
   */
  async load(objectKey: string, open: () => Promise<Readable | null>): Promise<Buffer | undefined> {
    const cached = this.get(objectKey);
    if (cached) return cached;
    let pending = this.loading.get(objectKey);
    if (!pending) {
      pending = this.read(open).finally(() => this.loading.delete(objectKey));
      this.loading.set(objectKey, pending);
      void pending.then((body) => body && this.keep(objectKey, body), () => undefined);
    }
    return pending;
  }

  drop(objectKeys: readonly string[]): void {
    for (const key of objectKeys) {
      const body = this.entries.get(key);
      if (!body) continue;
      this.entries.delete(key);
      this.bytes -= body.length;
    }
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
