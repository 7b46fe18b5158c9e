import type { FileRow } from '../db/schema.js';

const MAX_ENTRIES = 10_000;
const TTL_MS = 60_000;

/** Cache keys of a stored file: by owner and name, by short code, and by anonymous name. */
export function cacheKeysOf(file: Pick<FileRow, 'accountId' | 'filename' | 'shortCode'>, ...formerNames: string[]): string[] {
  const owner = file.accountId ?? 'anon';
  return [...[file.filename, ...formerNames].map((name) => `${owner}:${name}`), `s:${file.shortCode}`];
}

/**
 * A small per-process cache of file lookups for serving hot files without a query each time.
 * Entries live a minute at most; any change to a file drops them here at once and, through the
 * cache-purge job's pub/sub message, in every other web process.
 */
export class FileCache {
  private readonly entries = new Map<string, { value: FileRow; until: number }>();

  get(key: string): FileRow | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until < Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    // Re-insert: Map order is the LRU order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Only hits are cached, so a new upload is served the moment it is stored. */
  set(key: string, value: FileRow): void {
    this.entries.set(key, { value, until: Date.now() + TTL_MS });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Returns the row from the cache, or loads it (and caches it when found). */
  async through(key: string, load: () => Promise<FileRow | undefined>): Promise<FileRow | undefined> {
    const cached = this.get(key);
    if (cached) return cached;
    const row = await load();
    if (row) this.set(key, row);
    return row;
  }

  invalidate(keys: readonly string[]): void {
    for (const key of keys) this.entries.delete(key);
  }
}
