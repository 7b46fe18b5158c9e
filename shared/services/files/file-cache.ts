import type { FileRow } from '../../db/schema.js';
import { FileBodyCache } from './file-body-cache.js';

const MAX_ENTRIES = 10_000;
// The bound on staleness should a change's message ever be missed without the subscription dropping.
const TTL_MS = 10_000;
// A lookup may share a load of the same key started this recently. A change answered without this
// process's acknowledgement waited 250 ms after its commit (CachePurgeService's ACK_TIMEOUT_MS), so a
// load younger than that began after any change answered before the lookup arrived.
const JOIN_MS = 200;

/** The cache key of a lookup by name: an account's file (by account id), or an anonymous upload (null). */
export function nameKey(accountId: string | null, filename: string): string {
  return `${accountId ?? 'anon'}:${filename}`;
}

/** The cache key of a lookup by short code. */
export function shortCodeKey(code: string): string {
  return `s:${code}`;
}

/** Cache keys of a stored file: by owner (or anonymous) and name, and by short code. */
export function cacheKeysOf(file: Pick<FileRow, 'accountId' | 'filename' | 'shortCode'>, ...formerNames: string[]): string[] {
  return [...[file.filename, ...formerNames].map((name) => nameKey(file.accountId, name)), shortCodeKey(file.shortCode)];
}

/**
 * A small per-process cache of file lookups for serving hot files without a query each time. It
 * caches only while invalidations can reach it (`resume` once subscribed, `suspend` as soon as the
 * subscription may have missed one); any change drops entries here at once and, through CachePurgeService's
 * message, in every other process before the change is answered. It answers from memory only shortly
 * after a `confirm`: a process that was paused or starved may have a change's message still unread.
 */
export class FileCache {
  private readonly entries = new Map<string, { value: FileRow; until: number }>();
  // Bumped by every invalidation: a lookup that was in flight meanwhile may have read the old row.
  private generation = 0;
  private live = false;
  // On the monotonic clock (performance.now), which runs on while the process is stopped.
  private liveSince = 0;
  private confirmedUntil = 0;
  // Loads in flight by key: a burst of misses for one hot file (a lapsed confirmation under load) makes one query.
  private readonly loading = new Map<string, { generation: number; startedAt: number; row: Promise<FileRow | undefined> }>();

  /** `bodies`: the bytes of small hot files, dropped with their file's lookups. */
  constructor(readonly bodies = new FileBodyCache(0, 0)) {}

  get(key: string): FileRow | undefined {
    const now = performance.now();
    // Unconfirmed for too long: read through (entries stay; the next confirmation comes after the unread messages).
    if (now >= this.confirmedUntil) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until < now) {
      this.entries.delete(key);
      return undefined;
    }
    // Re-insert: Map order is the LRU order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /**
   * Returns the row from the cache, or loads it and caches it when found (only hits are cached, so a
   * new upload is served the moment it is stored) and nothing was invalidated while it loaded.
   */
  async through(key: string, load: () => Promise<FileRow | undefined>): Promise<FileRow | undefined> {
    const cached = this.get(key);
    if (cached) return cached;
    const now = performance.now();
    const inFlight = this.loading.get(key);
    if (inFlight && inFlight.generation === this.generation && now - inFlight.startedAt < JOIN_MS) {
      // A miss may predate an upload answered since, which no invalidation announces: only a hit is shared.
      const shared = await inFlight.row;
      if (shared) return shared;
    }
    const generation = this.generation;
    const row = load().then((found) => {
      if (found && this.live && generation === this.generation) {
        this.entries.set(key, { value: found, until: performance.now() + TTL_MS });
        if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      }
      return found;
    });
    const entry = { generation, startedAt: now, row };
    this.loading.set(key, entry);
    try {
      return await row;
    } finally {
      if (this.loading.get(key) === entry) this.loading.delete(key);
    }
  }

  invalidate(keys: readonly string[], objectKeys: readonly string[] = []): void {
    this.generation += 1;
    for (const key of keys) this.entries.delete(key);
    this.bodies.drop(objectKeys);
  }

  /**
   * Every invalidation published before `sentAt` (performance.now) has been applied, so entries may be
   * served until `until`. Proofs from before the last `resume` (another connection) count for nothing.
   */
  confirm(sentAt: number, until: number): void {
    if (this.live && sentAt >= this.liveSince && until > this.confirmedUntil) this.confirmedUntil = until;
  }

  /** Invalidations may no longer arrive: forget everything and read through until `resume` and a `confirm`. */
  suspend(): void {
    this.generation += 1;
    this.live = false;
    this.confirmedUntil = 0;
    this.entries.clear();
  }

  resume(): void {
    this.generation += 1;
    this.live = true;
    this.liveSince = performance.now();
  }
}
