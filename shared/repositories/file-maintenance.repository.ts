import { and, asc, eq, gt, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { accounts, files, type FileRow } from '../db/schema.js';
import { releaseStorage } from './file.repository.js';
import { refusingUnstorableText } from './pg-errors.js';

/** A stored file as integrity checks read it: its object, what was recorded of its bytes, its owner's name. */
export interface StoredFile {
  id: string;
  filename: string;
  objectKey: string;
  size: number;
  sha256: string | null;
  /** the owner's username; null for an anonymous upload */
  account: string | null;
}

const STORED_FILE = { id: files.id, filename: files.filename, objectKey: files.objectKey, size: files.size, sha256: files.sha256, account: accounts.username };

/**
 * Statements on any account's files by id, for the work no owner asks for: expiry, moderation,
 * deletion links (where the token, not an account, is the credential) and the orphan sweep. They
 * take no owner, so they live apart from FileRepository, and only the services doing that work are
 * given this class: a route holding an account can never reach another account's file through it
 * by mistake.
 */
export class FileMaintenanceRepository {
  // Every moderation check runs these two: drizzle builds them once instead of per call.
  private readonly byIdStatement;
  private readonly recordModerationStatement;

  constructor(private readonly db: Database) {
    this.byIdStatement = db.select().from(files).where(eq(files.id, sql.placeholder('id'))).prepare('file_by_id');
    this.recordModerationStatement = db
      .update(files)
      .set({
        moderationVerdict: sql`${sql.placeholder('verdict')}`,
        moderationScore: sql`${sql.placeholder('score')}`,
        quarantined: sql`${sql.placeholder('quarantined')}`,
        moderatedAt: sql`now()`,
        moderationReviewedAt: null,
      })
      .where(and(eq(files.id, sql.placeholder('id')), eq(files.objectKey, sql.placeholder('objectKey'))))
      .returning()
      .prepare('file_record_moderation');
  }

  async findById(id: string): Promise<FileRow | undefined> {
    const [row] = await this.byIdStatement.execute({ id });
    return row;
  }

  /** Removes whichever file this is (expiry, deletion tokens); storage goes back to its owner if any. */
  async deleteById(id: string): Promise<FileRow | undefined> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.delete(files).where(eq(files.id, id)).returning();
      if (row?.accountId) await releaseStorage(tx, row.accountId, row.size);
      return row;
    });
  }

  async findByDeletionToken(filename: string, tokenHash: string): Promise<FileRow | undefined> {
    const [row] = await refusingUnstorableText(() =>
      this.db
        .select()
        .from(files)
        .where(and(eq(files.filename, filename), eq(files.deletionTokenHash, tokenHash))),
    );
    return row;
  }

  /** Stores a verdict, unless the file has since been replaced (its object changed) or deleted. */
  async recordModeration(
    id: string,
    objectKey: string,
    result: { verdict: FileRow['moderationVerdict']; score: number | null; quarantined: boolean },
  ): Promise<FileRow | undefined> {
    const [row] = await this.recordModerationStatement.execute({
      id,
      objectKey,
      verdict: result.verdict,
      score: result.score === null ? null : Math.round(result.score),
      quarantined: result.quarantined,
    });
    return row;
  }

  /** Records that the content `objectKey` has thumbnails; false when the file has since been replaced or deleted. */
  async recordThumbnail(id: string, objectKey: string, size: { width: number; height: number }): Promise<boolean> {
    const rows = await this.db
      .update(files)
      .set({ thumbnailAt: sql`now()`, thumbnailWidth: size.width, thumbnailHeight: size.height })
      .where(and(eq(files.id, id), eq(files.objectKey, objectKey)))
      .returning({ id: files.id });
    return rows.length > 0;
  }

  /**
   * Files of the given types still without a verdict since before `cutoff` (stored or replaced),
   * one page after the id `after` (keyset: a page never repeats, however many stay unjudged).
   */
  async unjudged(mimePattern: string, cutoff: Date, limit: number, after?: string): Promise<FileRow[]> {
    return this.db
      .select()
      .from(files)
      .where(
        and(
          isNull(files.moderatedAt),
          sql`${files.mimeType} ~ ${mimePattern}`,
          sql`coalesce(${files.updatedAt}, ${files.createdAt}) < ${cutoff}`,
          after === undefined ? undefined : gt(files.id, after),
        ),
      )
      .orderBy(asc(files.id))
      .limit(limit);
  }

  /**
   * Flagged and quarantined files that no administrator has reviewed yet: those still awaiting a
   * verdict on new content first, then newest first. (The condition is the partial index's.)
   */
  async flagged(limit: number): Promise<FileRow[]> {
    return this.db
      .select()
      .from(files)
      .where(sql`(${files.moderationVerdict} in ('soft_flag', 'hard_block') or ${files.quarantined}) and ${files.moderationReviewedAt} is null`)
      .orderBy(sql`${files.moderatedAt} desc nulls first`)
      .limit(limit);
  }

  async release(id: string): Promise<FileRow | undefined> {
    const [row] = await this.db
      .update(files)
      .set({ quarantined: false, moderationReviewedAt: new Date() })
      .where(eq(files.id, id))
      .returning();
    return row;
  }

  /** Which of `keys` a file row names (`object_key` is the only column that names stored objects). */
  async referencedObjectKeys(keys: readonly string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await this.db.selectDistinct({ key: files.objectKey }).from(files).where(inArray(files.objectKey, [...keys]));
    return new Set(rows.map((row) => row.key));
  }

  /** Every stored file, a page at a time in id order after the id `after` (keyset: a page never repeats). */
  async storedFiles(limit: number, after?: string): Promise<StoredFile[]> {
    return this.db
      .select(STORED_FILE)
      .from(files)
      .leftJoin(accounts, eq(accounts.id, files.accountId))
      .where(after === undefined ? undefined : gt(files.id, after))
      .orderBy(asc(files.id))
      .limit(limit);
  }

  /** `count` stored files picked at random. */
  async sampleStoredFiles(count: number): Promise<StoredFile[]> {
    return this.db.select(STORED_FILE).from(files).leftJoin(accounts, eq(accounts.id, files.accountId)).orderBy(sql`random()`).limit(count);
  }

  /** Which of `stored` still name the same object now (neither deleted nor replaced since they were read): their ids. */
  async stillStored(stored: readonly Pick<StoredFile, 'id' | 'objectKey'>[]): Promise<Set<string>> {
    if (stored.length === 0) return new Set();
    const rows = await this.db.select({ id: files.id, objectKey: files.objectKey }).from(files).where(inArray(files.id, stored.map((f) => f.id)));
    const current = new Map(rows.map((row) => [row.id, row.objectKey]));
    return new Set(stored.filter((f) => current.get(f.id) === f.objectKey).map((f) => f.id));
  }

  /**
   * Deletes up to `limit` files whose expiry time has passed and gives their storage back to their
   * owners, in one transaction. Files another sweep is deleting meanwhile are skipped, not waited for,
   * so sweeps running at once share the work.
   */
  async deleteExpired(now: Date, limit: number): Promise<FileRow[]> {
    return this.db.transaction(async (tx) => {
      const due = tx.select({ id: files.id }).from(files).where(lte(files.expiresAt, now)).orderBy(asc(files.expiresAt)).limit(limit).for('update', { skipLocked: true });
      const rows = await tx.delete(files).where(inArray(files.id, due)).returning();
      const released = new Map<string, { bytes: number; count: number }>();
      for (const row of rows) {
        if (!row.accountId) continue;
        const sum = released.get(row.accountId) ?? { bytes: 0, count: 0 };
        released.set(row.accountId, { bytes: sum.bytes + row.size, count: sum.count + 1 });
      }
      if (released.size === 0) return rows;
      // Locked in one order, so two batches sharing owners cannot deadlock.
      const owners = [...released.keys()].sort();
      await tx.select({ id: accounts.id }).from(accounts).where(inArray(accounts.id, owners)).orderBy(asc(accounts.id)).for('update');
      await tx.execute(sql`
        update ${accounts} set
          storage_used = greatest(${accounts.storageUsed} - r.bytes, 0),
          file_count = greatest(${accounts.fileCount} - r.count, 0)
        from jsonb_to_recordset(${JSON.stringify(owners.map((id) => ({ id, ...released.get(id)! })))}::jsonb) as r(id uuid, bytes bigint, count int)
        where ${accounts.id} = r.id`);
      return rows;
    });
  }

  /** Whether any file's expiry time has passed (one probe of the expiry index). */
  async anyExpired(now: Date): Promise<boolean> {
    const rows = await this.db.select({ id: files.id }).from(files).where(lte(files.expiresAt, now)).limit(1);
    return rows.length > 0;
  }
}
