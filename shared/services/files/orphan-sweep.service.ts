import type { Logger } from '../../logger.js';
import type { FileMaintenanceRepository } from '../../repositories/file-maintenance.repository.js';
import { OBJECT_KEY_PREFIX, type StorageDriver, type TusStore } from '../../storage/index.js';
import { sourceKeyOf } from '../media/thumbnails/thumbnail-keys.js';

// Younger objects may be uploads still being written or about to get their row. An hour, as no upload
// outlives the web's one-hour request timeout (S3 dates a multipart object from its upload's start).
const ORPHAN_MIN_AGE_MS = 60 * 60_000;
const CHECK_BATCH = 500;

export interface ReconcileOptions {
  /** Objects last modified less than this long ago are left alone. */
  minAgeMs?: number;
  signal?: AbortSignal;
}

export interface ReconcileResult {
  /** Objects listed, young ones included. */
  scanned: number;
  /** Objects deleted because no file row names them, and resumable uploads' leftovers past their expiry. */
  removed: number;
}

/**
 * The safety net behind every path that can leave an object without a row (a process killed
 * mid-upload, a delete whose `object.delete` job could not be queued): storage is compared with the
 * database, and what no file row names is deleted, with the thumbnails of such objects. The resumable
 * uploads' area is swept too, by age (past the uploads' expiry), as its state may be gone with Redis.
 */
export class OrphanSweepService {
  constructor(private readonly deps: { files: FileMaintenanceRepository; storage: StorageDriver; resumable: Pick<TusStore, 'removeStale'>; logger: Logger }) {}

  async reconcile({ minAgeMs = ORPHAN_MIN_AGE_MS, signal }: ReconcileOptions = {}): Promise<ReconcileResult> {
    const cutoff = Date.now() - minAgeMs;
    let scanned = 0;
    let removed = 0;
    let batch: string[] = [];
    for await (const object of this.deps.storage.list(OBJECT_KEY_PREFIX)) {
      scanned += 1;
      if (object.modifiedAt.getTime() > cutoff) continue;
      batch.push(object.key);
      if (batch.length < CHECK_BATCH) continue;
      removed += await this.removeUnreferenced(batch, signal);
      batch = [];
    }
    removed += await this.removeUnreferenced(batch, signal);
    signal?.throwIfAborted();
    removed += await this.deps.resumable.removeStale();
    if (removed > 0) this.deps.logger.info({ scanned, removed }, 'removed orphan objects');
    return { scanned, removed };
  }

  private async removeUnreferenced(keys: string[], signal: AbortSignal | undefined): Promise<number> {
    signal?.throwIfAborted();
    // A thumbnail is kept while its file's object is named, and goes when it is not.
    const referenced = await this.deps.files.referencedObjectKeys([...new Set(keys.map(sourceKeyOf))]);
    const orphans = keys.filter((key) => !referenced.has(sourceKeyOf(key)));
    for (const key of orphans) await this.deps.storage.delete(key);
    return orphans.length;
  }
}
