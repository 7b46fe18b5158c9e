import { and, asc, count, desc, eq, gt, inArray, isNull, lte, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { accounts, files, type FileRow } from '../db/schema.js';
import { AppError } from '../errors.js';
import { whileFolderExists } from './pg-errors.js';

export const SORT_COLUMNS = {
  timestamp: files.createdAt,
  size: files.size,
  filename: files.filename,
  originalName: files.originalName,
} as const;

export interface FileListQuery {
  page: number;
  limit: number;
  search?: string | undefined;
  /** a folder id, 'root' for files outside folders, or undefined for all */
  folderId?: string | undefined;
  sortBy: keyof typeof SORT_COLUMNS;
  sortOrder: 'asc' | 'desc';
}

export interface Replacement {
  objectKey: string;
  size: number;
  mimeType: string;
  originalName: string;
}

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

/** All SQL on files. Reads and writes for an account always name it; anonymous files have none. */
export class FileRepository {
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

  async findOwned(accountId: string, filename: string): Promise<FileRow | undefined> {
    const [row] = await this.db
      .select()
      .from(files)
      .where(and(eq(files.accountId, accountId), eq(files.filename, filename)));
    return row;
  }

  /**
   * One page of an account's files and how many match, for the dashboard. Without a search or a
   * folder every file matches, and the account row already holds that number (`fileCount`).
   */
  async page(accountId: string, query: FileListQuery): Promise<{ rows: FileRow[]; matching: number | undefined }> {
    const conditions: SQL[] = [eq(files.accountId, accountId)];
    if (query.folderId === 'root') conditions.push(isNull(files.folderId));
    else if (query.folderId) conditions.push(eq(files.folderId, query.folderId));
    if (query.search) {
      // Same expression as the trigram index, so the index serves the substring search.
      const pattern = `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      conditions.push(sql`(${files.filename} || E'\\x01' || ${files.originalName}) ilike ${pattern}`);
    }
    const where = and(...conditions);
    const order = query.sortOrder === 'asc' ? asc : desc;
    const narrowed = conditions.length > 1;
    const [rows, matching] = await Promise.all([
      this.db
        .select()
        .from(files)
        .where(where)
        .orderBy(order(SORT_COLUMNS[query.sortBy]), order(files.id))
        .limit(query.limit)
        .offset((query.page - 1) * query.limit),
      narrowed ? this.db.select({ n: count() }).from(files).where(where) : undefined,
    ]);
    return { rows, matching: matching?.[0]?.n };
  }

  /** Renames a file; a name the account already uses fails on the unique index. */
  async rename(accountId: string, filename: string, newFilename: string, mimeType: string): Promise<FileRow | undefined> {
    const [row] = await this.db
      .update(files)
      .set({ filename: newFilename, mimeType })
      .where(and(eq(files.accountId, accountId), eq(files.filename, filename)))
      .returning();
    return row;
  }

  /**
   * Points a file at a new object in one transaction, adjusting the account's storage by the size
   * difference only while it stays within `storageLimit`. The verdict on the old content goes with
   * it: the new content is unjudged until moderation says otherwise. A quarantine stays until then
   * when `holdQuarantine` (the new content will be judged). Returns the row before and after.
   */
  async replace(accountId: string, filename: string, next: Replacement, storageLimit: number, holdQuarantine: boolean) {
    return this.db.transaction(async (tx) => {
      const [before] = await tx
        .select()
        .from(files)
        .where(and(eq(files.accountId, accountId), eq(files.filename, filename)))
        .for('update');
      if (!before) throw AppError.notFound('File not found');
      const delta = next.size - before.size;
      const charged = await tx
        .update(accounts)
        .set({ storageUsed: sql`greatest(${accounts.storageUsed} + ${delta}, 0)` })
        .where(and(eq(accounts.id, accountId), sql`(${delta} <= 0 or ${accounts.storageUsed} + ${delta} <= ${storageLimit})`))
        .returning({ id: accounts.id });
      if (charged.length === 0) throw AppError.tooLarge('The larger file would pass the storage limit');
      const [after] = await tx
        .update(files)
        .set({
          ...next,
          updatedAt: new Date(),
          moderationVerdict: null,
          moderationScore: null,
          moderatedAt: null,
          moderationReviewedAt: null,
          quarantined: holdQuarantine ? sql`${files.quarantined}` : false,
        })
        .where(eq(files.id, before.id))
        .returning();
      return { before, after: after! };
    });
  }

  async setPrivate(accountId: string, filename: string, isPrivate: boolean): Promise<FileRow | undefined> {
    const [row] = await this.db
      .update(files)
      .set({ isPrivate })
      .where(and(eq(files.accountId, accountId), eq(files.filename, filename)))
      .returning();
    return row;
  }

  /** Moves the named files of the account into a folder (null = root); returns the names moved. */
  async move(accountId: string, filenames: string[], folderId: string | null): Promise<string[]> {
    if (filenames.length === 0) return [];
    const rows = await whileFolderExists(() =>
      this.db
        .update(files)
        .set({ folderId })
        .where(and(eq(files.accountId, accountId), inArray(files.filename, filenames)))
        .returning({ filename: files.filename }),
    );
    return rows.map((r) => r.filename);
  }

  async findAnonymous(filename: string): Promise<FileRow | undefined> {
    const [row] = await this.db
      .select()
      .from(files)
      .where(and(isNull(files.accountId), eq(files.filename, filename)));
    return row;
  }

  async findByShortCode(code: string): Promise<FileRow | undefined> {
    const [row] = await this.db.select().from(files).where(eq(files.shortCode, code));
    return row;
  }

  /** Removes an account's file and gives its storage back, atomically. */
  async deleteOwned(accountId: string, filename: string): Promise<FileRow | undefined> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .delete(files)
        .where(and(eq(files.accountId, accountId), eq(files.filename, filename)))
        .returning();
      if (row) await releaseStorage(tx, accountId, row.size);
      return row;
    });
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
    const [row] = await this.db
      .select()
      .from(files)
      .where(and(eq(files.filename, filename), eq(files.deletionTokenHash, tokenHash)));
    return row;
  }

  async findById(id: string): Promise<FileRow | undefined> {
    const [row] = await this.byIdStatement.execute({ id });
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

  /** Files whose expiry time has passed (optionally just the one with `id`). */
  async findExpired(now: Date, limit: number, id?: string): Promise<FileRow[]> {
    const due = lte(files.expiresAt, now);
    return this.db
      .select()
      .from(files)
      .where(id ? and(due, eq(files.id, id)) : due)
      .limit(limit);
  }
}

/** A removed file's bytes and count go back to its account, in the transaction that removed it. */
async function releaseStorage(tx: Tx, accountId: string, size: number) {
  await tx
    .update(accounts)
    .set({ storageUsed: sql`greatest(${accounts.storageUsed} - ${size}, 0)`, fileCount: sql`greatest(${accounts.fileCount} - 1, 0)` })
    .where(eq(accounts.id, accountId));
}
