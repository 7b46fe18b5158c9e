import type { Readable } from 'node:stream';

/** How long a request counts towards a file's admission, and how many uncached files are counted at most. */
const USES_WINDOW_MS = 60_000;
const MAX_COUNTED = 10_000;
/** The largest block the bytes are kept in. */
const MAX_BLOCK_BYTES = 4 * 1024 * 1024;

/** A block of memory that kept bodies are appended to, never overwritten: a body handed out stays valid while it is sent. */
interface Block {
  readonly bytes: Buffer;
  used: number;
  /** Object keys of the bodies in it that are still kept. */
  readonly keys: Set<string>;
}

interface Entry {
  readonly body: Buffer;
  readonly block: Block;
  /** Read since it was placed in its block: it moves on, rather than out, when that block is emptied. */
  readSince: boolean;
}

/**
 * The bytes of small hot files, in memory, within a byte budget. While the budget has room every
 * small file read is kept; once it is full, a file displaces others only when it is hot, requested
 * `minUses` times within a minute: one-off reads of the long tail are streamed from storage instead.
 *
 * The bytes live in a few large blocks, filled in turn, rather than one allocation per file: kept for
 * minutes amid the short-lived buffers of every request, small allocations each pinned the C heap
 * (glibc keeps freed memory below a pinned one): its extent crept up while what it held did not.
 * A block is its own mapping, and an emptied one goes back to the kernel whole. Room is made by
 * emptying the oldest block: what was read since it was placed moves to the newest one (a second
 * chance, as a clock cache gives), the rest goes. The blocks together never exceed the budget; while
 * one is being emptied, bodies still being sent from it keep it alive until they are done.
 *
 * Entries are keyed by object key, and an object key's content never changes (a replace stores a new
 * object), so an entry can never hold stale bytes: whether a file may be served at all is decided by
 * its lookup, and a changed file's bytes are dropped along with its lookup (FileCache). The one place
 * where a file body is held whole, on purpose: at most `maxFileBytes`.
 */
export class FileBodyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<Buffer | undefined>>();
  /** Requests of files not held, within the current window of each. */
  private readonly uses = new Map<string, { count: number; since: number }>();
  /** Oldest first; the last is the one being filled. */
  private readonly blocks: Block[] = [];
  private readonly blockBytes: number;
  private readonly maxBlocks: number;
  private bytes = 0;

  constructor(
    readonly budgetBytes: number,
    readonly maxFileBytes: number,
    readonly minUses = 1,
  ) {
    // At least 4 blocks where the budget allows, so emptying one gives up a quarter at most.
    this.blockBytes = Math.max(maxFileBytes, Math.min(MAX_BLOCK_BYTES, Math.floor(budgetBytes / 4)));
    this.maxBlocks = this.blockBytes > 0 ? Math.floor(budgetBytes / this.blockBytes) : 0;
  }

  /** Bytes of the bodies held right now (the blocks holding them never exceed the budget). */
  get size(): number {
    return this.bytes;
  }

  accepts(size: number): boolean {
    return size <= this.maxFileBytes && this.maxBlocks > 0;
  }

  get(objectKey: string): Buffer | undefined {
    const entry = this.entries.get(objectKey);
    if (!entry) return undefined;
    entry.readSince = true;
    return entry.body;
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
      pending = this.read(open)
        .then((chunks) => chunks && this.keep(objectKey, chunks))
        .finally(() => this.loading.delete(objectKey));
      this.loading.set(objectKey, pending);
    }
    return pending;
  }

  drop(objectKeys: readonly string[]): void {
    for (const key of objectKeys) {
      this.uses.delete(key);
      const entry = this.entries.get(key);
      if (entry) this.remove(key, entry);
    }
  }

  /** Whether a file not held may be read in: there is room for it, or it is hot. */
  private admits(objectKey: string, size: number): boolean {
    if (this.minUses <= 1 || this.fitsWithoutEvicting(size)) return true;
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

  private fitsWithoutEvicting(size: number): boolean {
    return this.newestWithRoom(size) !== undefined || this.blocks.length < this.maxBlocks;
  }

  /** The stream's chunks; undefined when it is gone or larger than any kept file. */
  private async read(open: () => Promise<Readable | null>): Promise<Buffer[] | undefined> {
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
    return chunks;
  }

  private keep(objectKey: string, chunks: Buffer[]): Buffer {
    return this.entries.get(objectKey)?.body ?? this.append(objectKey, chunks);
  }

  /** Copies the parts into the newest block, making room first; the kept body. */
  private append(key: string, parts: readonly Buffer[]): Buffer {
    const length = parts.reduce((sum, part) => sum + part.length, 0);
    const block = this.blockWithRoom(length);
    const body = block.bytes.subarray(block.used, block.used + length);
    let at = 0;
    for (const part of parts) at += part.copy(body, at);
    block.used += length;
    block.keys.add(key);
    this.entries.set(key, { body, block, readSince: false });
    this.bytes += length;
    return body;
  }

  private newestWithRoom(length: number): Block | undefined {
    const newest = this.blocks.at(-1);
    return newest && newest.bytes.length - newest.used >= length ? newest : undefined;
  }

  /** The newest block once it has `length` bytes free: a new one while the budget allows, else the oldest emptied. */
  private blockWithRoom(length: number): Block {
    // Each pass clears the second chance of what it moves, so this ends within a round of the blocks.
    for (;;) {
      const newest = this.newestWithRoom(length);
      if (newest) return newest;
      if (this.blocks.length < this.maxBlocks) this.blocks.push(this.newBlock());
      else this.empty(this.blocks.shift()!);
    }
  }

  /**
   * Takes a block out of use: bodies read since they were placed move to the newest block, the
   * others go. The emptied block is out of the list already, so moving never empties another.
   */
  private empty(block: Block): void {
    const moving: [string, Buffer][] = [];
    for (const key of block.keys) {
      const entry = this.entries.get(key)!;
      this.remove(key, entry);
      if (entry.readSince) moving.push([key, entry.body]);
    }
    for (const [key, old] of moving) this.append(key, [old]);
  }

  private newBlock(): Block {
    // Mapped by V8 itself, never by malloc: a resizable ArrayBuffer's memory is reserved and committed
    // in pages of its own. malloc served a block from the free top of its heap whenever that was big
    // enough (glibc keeps up to 64 MiB there, process-env.sh), and the block then pinned the heap again.
    const memory = new ArrayBuffer(this.blockBytes, { maxByteLength: this.blockBytes });
    // Touched whole at once: resident memory is then the blocks, flat once warm, rather than a ramp
    // as each new block fills and a drop as the oldest goes.
    return { bytes: Buffer.from(memory, 0, this.blockBytes).fill(0), used: 0, keys: new Set() };
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    entry.block.keys.delete(key);
    this.bytes -= entry.body.length;
    // An older block left with nothing kept in it is freed at once, rather than when its turn comes.
    if (entry.block.keys.size === 0 && entry.block !== this.blocks.at(-1)) {
      const at = this.blocks.indexOf(entry.block);
      if (at !== -1) this.blocks.splice(at, 1);
    }
  }
}
