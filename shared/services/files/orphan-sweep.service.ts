import type { Logger } from '../../logger.js';
import type { FileMaintenanceRepository } from '../../repositories/file-maintenance.repository.js';
import { OBJECT_KEY_PREFIX, type StorageDriver, type TusStore } from '../../storage/index.js';
import { sourceKeyOf } from '../media/thumbnails/thumbnail-keys.js';
import type { FileProblem, IntegrityService, Mismatch } from './integrity.service.js';

// Younger objects may be uploads still being written or about to get their row. An hour, as no upload
// outlives the web's one-hour request timeout (S3 dates a multipart object from its upload's start).
const ORPHAN_MIN_AGE_MS = 60 * 60_000;
const CHECK_BATCH = 500;
// The job's answer is kept in Redis: it names this many problem files of each kind, the log every one.
const REPORTED = 100;

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
  /** Files whose object was looked for. */
  checked: number;
  /** Files whose object is gone (the first 100). */
  missing: FileProblem[];
  /** Files whose object's size differs from the recorded one, in bytes (the first 100). */
  wrongSize: Mismatch<number>[];
}

/**
 * The safety net behind every path that can leave an object without a row (a process killed
 * mid-upload, a delete whose `object.delete` job could not be queued): storage is compared with the
 * database, and what no file row names is deleted, with the thumbnails of such objects. The resumable
 * uploads' area is swept too, by age (past the uploads' expiry), as its state may be gone with Redis.
 * The other way round, files whose object is missing or has the wrong size are reported (never changed).
 */
export class OrphanSweepService {
  constructor(
    private readonly deps: {
      files: FileMaintenanceRepository;
      storage: StorageDriver;
      resumable: Pick<TusStore, 'removeStale'>;
      integrity: Pick<IntegrityService, 'checkObjects'>;
      logger: Logger;
    },
  ) {}

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
    const { checked, missing, wrongSize } = await this.deps.integrity.checkObjects(signal);
    if (missing.length + wrongSize.length > 0) this.deps.logger.error({ checked, missing: missing.length, wrongSize: wrongSize.length }, 'stored files without their bytes');
    return { scanned, removed, checked, missing: missing.slice(0, REPORTED), wrongSize: wrongSize.slice(0, REPORTED) };
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
