import { and, asc, count, desc, eq, getTableColumns, gt, inArray, isNull, lte, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { accounts, files, type FileRow } from '../db/schema.js';
import { Batcher, oneByOne, type Outcome } from '../batcher.js';
import { prepareSql } from '../db/prepared-sql.js';
import { AppError } from '../errors.js';
import { secondsUntilNextUtcDay, utcDay } from '../time.js';
import { isRowError, whileFolderExists } from './pg-errors.js';

export type NewFile = typeof files.$inferInsert;

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

export interface UploadCharge {
  dailyLimit: number;
  storageLimit: number;
}

/**
 * JSON.stringify writes half a surrogate pair (a name cut in the middle of an emoji) as an escape
 * that jsonb refuses; as a text parameter the driver would have sent U+FFFD in its place. Same here.
 */
function wellFormed(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? value.replace(/\p{Cs}/gu, '\uFFFD') : value;
}

interface ChargedUpload {
  file: NewFile;
  charge: UploadCharge;
}

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

const FILE_COLUMNS = Object.entries(getTableColumns(files));

/** A raw `returning *` row of files, typed the way drizzle's own queries return it. */
function fromRow(raw: Record<string, unknown>): FileRow {
  const row: Record<string, unknown> = {};
  for (const [key, column] of FILE_COLUMNS) {
    const value = raw[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as FileRow;
}

/** All SQL on files. Reads and writes for an account always name it; anonymous files have none. */
export class FileRepository {
  // Every account upload runs this; prepared, it is planned once per connection, not per upload.
  private readonly insertChargedStatement;
  private readonly charges: Batcher<ChargedUpload, FileRow>;
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
    const p = (name: 'accountId' | 'day' | 'dailyLimit' | 'storageLimit') => sql.placeholder(name);
    // Records uploads of one account and charges them, in one statement: the account row is updated
    // only while today's count and the storage stay within their limits with all of them (a
    // row-locked conditional UPDATE), and the files are inserted only if that happened. The files
    // come in as one JSON array.
    this.insertChargedStatement = prepareSql(
      db,
      'file_insert_charged',
      sql`
        with batch as (
          select * from jsonb_to_recordset(${sql.placeholder('files')}::jsonb) as f(
            folder_id uuid, filename text, original_name text, object_key text, short_code text, size bigint,
            mime_type text, source text, url_format text, expires_at timestamptz, expiry text, deletion_token_hash text)
        ), total as (
          select count(*)::int as uploads, sum(size)::bigint as bytes from batch
        ), charged as (
          update accounts set
            storage_used = storage_used + total.bytes,
            file_count = file_count + total.uploads,
            upload_count = upload_count + total.uploads,
            last_used_at = now(),
            usage_day_count = case when usage_day = ${p('day')}::date then usage_day_count + total.uploads else total.uploads end,
            usage_day = ${p('day')}::date
          from total
          where id = ${p('accountId')}::uuid
            and storage_used + total.bytes <= ${p('storageLimit')}::bigint
            and case when usage_day = ${p('day')}::date then usage_day_count else 0 end + total.uploads <= ${p('dailyLimit')}::int
          returning accounts.id
        )
        insert into files (account_id, folder_id, filename, original_name, object_key, short_code, size, mime_type,
                           source, url_format, expires_at, expiry, deletion_token_hash)
        select charged.id, batch.folder_id, batch.filename, batch.original_name, batch.object_key, batch.short_code,
               batch.size, batch.mime_type, batch.source, batch.url_format, batch.expires_at, batch.expiry,
               batch.deletion_token_hash
        from charged, batch
        returning *`,
    );
    this.charges = new Batcher((accountId, uploads) => this.chargeBatch(accountId, uploads));
  }

  /**
   * Records an upload and charges it atomically: no number of concurrent uploads can pass a limit,
   * and a failure anywhere (a taken name too) leaves nothing charged. Concurrent uploads of one
   * account are charged together (see Batcher).
   */
  async insertCharged(file: NewFile, charge?: UploadCharge): Promise<FileRow> {
    if (!file.accountId || !charge) {
      const [row] = await this.db.insert(files).values(file).returning();
      return row!;
    }
    return this.charges.submit(file.accountId, { file, charge });
  }

  /**
   * One statement for the whole batch while it fits the limits and breaks no constraint; else one
   * upload after another, so exactly those that fit are taken and each failure is its own upload's.
   */
  private async chargeBatch(accountId: string, uploads: ChargedUpload[]): Promise<Outcome<FileRow>[]> {
    if (uploads.length > 1) {
      // What one upload holds (a taken name, a deleted folder, a NUL) fails the statement for all:
      // then they go one by one. Any other failure (the database gone) is every upload's answer.
      const rows = await this.insertChargedRows(accountId, uploads).catch((err: unknown) => {
        if (isRowError(err)) return [];
        throw err;
      });
      if (rows.length === uploads.length) {
        const byKey = new Map(rows.map((row) => [row.objectKey, row]));
        return uploads.map(({ file }) => ({ ok: true, value: byKey.get(file.objectKey)! }));
      }
    }
    return oneByOne(uploads, (upload) => this.insertChargedOne(accountId, upload));
  }

  private async insertChargedRows(accountId: string, uploads: ChargedUpload[], day = utcDay()): Promise<FileRow[]> {
    const raw = await this.insertChargedStatement({
      accountId,
      day,
      // The strictest of the batch: a plan changed between its uploads is then checked one by one.
      dailyLimit: Math.min(...uploads.map((u) => u.charge.dailyLimit)),
      storageLimit: Math.min(...uploads.map((u) => u.charge.storageLimit)),
      files: JSON.stringify(
        uploads.map(({ file }) => ({
          folder_id: file.folderId ?? null,
          filename: file.filename,
          original_name: file.originalName,
          object_key: file.objectKey,
          short_code: file.shortCode,
          size: file.size,
          mime_type: file.mimeType,
          source: file.source,
          url_format: file.urlFormat,
          expires_at: file.expiresAt ?? null,
          expiry: file.expiry ?? null,
          deletion_token_hash: file.deletionTokenHash,
        })),
        wellFormed,
      ),
    });
    return raw.map(fromRow);
  }

  private async insertChargedOne(accountId: string, upload: ChargedUpload): Promise<FileRow> {
    const day = utcDay();
    const [row] = await this.insertChargedRows(accountId, [upload], day);
    if (row) return row;
    const [account] = await this.db.select().from(accounts).where(eq(accounts.id, accountId));
    if (account?.usageDay === day && account.usageDayCount >= upload.charge.dailyLimit) {
      throw AppError.tooManyRequests('Daily upload limit reached', secondsUntilNextUtcDay());
    }
    throw AppError.forbidden('Storage limit reached: delete files or upgrade the plan');
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
