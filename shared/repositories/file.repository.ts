import { and, asc, count, desc, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Database, Transaction } from '../db/client.js';
import { accounts, files, folders, type FileRow } from '../db/schema.js';
import { DOCUMENT_PREFIXES, DOCUMENT_TYPES, type FileKind } from '../file-kinds.js';
import { done, refused, type Outcome } from './outcome.js';
import { outcomeOf, refusingUnstorableText } from './pg-errors.js';

export const SORT_COLUMNS = {
  timestamp: files.createdAt,
  size: files.size,
  filename: files.filename,
  originalName: files.originalName,
} as const;

/**
 * Which of an account's files, in what order, from where: the one query behind every listing (the
 * dashboard's numbered pages and the assistants' cursor).
 */
export interface FileListQuery {
  limit: number;
  search?: string | undefined;
  /** a folder id, 'root' for files outside folders, or undefined for all */
  folderId?: string | undefined;
  kind?: FileKind | undefined;
  uploadedAfter?: Date | undefined;
  uploadedBefore?: Date | undefined;
  sortBy: keyof typeof SORT_COLUMNS;
  sortOrder: 'asc' | 'desc';
  /** skip this many (numbered pages) */
  offset?: number | undefined;
  /** start after this file (a cursor, stable under inserts; upload-time order only) */
  after?: { id: string; createdAt: Date } | undefined;
  /** also count the matching files (the account row holds the count when nothing narrows) */
  countMatching?: boolean | undefined;
}

/** The same rule as `kindOf`, as SQL on `files.mime_type`. */
function kindCondition(kind: FileKind): SQL {
  const like = (prefix: string) => sql`${files.mimeType} like ${`${prefix}%`}`;
  const isDocument = sql`(${files.mimeType} in ${DOCUMENT_TYPES} or ${sql.join(DOCUMENT_PREFIXES.map(like), sql` or `)})`;
  if (kind === 'document') return isDocument;
  if (kind !== 'other') return like(`${kind}/`);
  return sql`not (${like('image/')} or ${like('video/')} or ${like('audio/')} or ${isDocument})`;
}

export interface Replacement {
  objectKey: string;
  size: number;
  sha256: string;
  mimeType: string;
  originalName: string;
}


/**
 * All SQL an account runs on its own files: every statement names the owner. Lookups that do not
 * (public names, ids, deletion tokens) live in PublicFileRepository and FileMaintenanceRepository.
 */
export class FileRepository {
  constructor(private readonly db: Database) {}

  async findOwned(accountId: string, filename: string): Promise<FileRow | undefined> {
    const [row] = await refusingUnstorableText(() =>
      this.db
        .select()
        .from(files)
        .where(and(eq(files.accountId, accountId), eq(files.filename, filename))),
    );
    return row;
  }

  /** One page of an account's files, and how many match when asked (`undefined`: all of them). */
  async list(accountId: string, query: FileListQuery): Promise<{ rows: FileRow[]; matching: number | undefined }> {
    const matches = and(eq(files.accountId, accountId), ...this.narrowing(query));
    const order = query.sortOrder === 'asc' ? asc : desc;
    // The file's name is unique in its account: it orders alone, so its unique index serves the order.
    const keys = query.sortBy === 'filename' ? [files.filename] : [SORT_COLUMNS[query.sortBy], files.id];
    const conditions = [matches];
    if (query.after) conditions.push(this.after(accountId, query.after, query.sortOrder));
    if (query.offset) conditions.push(this.fromPosition(matches, keys, query.offset, query.sortOrder));
    const [rows, matching] = await Promise.all([
      this.db
        .select()
        .from(files)
        .where(and(...conditions))
        .orderBy(...keys.map((key) => order(key)))
        .limit(query.limit),
      query.countMatching ? this.matchingCount(accountId, query, matches) : undefined,
    ]);
    return { rows, matching };
  }

  /**
   * How many files a narrowed listing holds. A folder alone (or the root) is answered from the
   * counts kept on the folder and account rows, not by counting a hundred thousand index entries.
   */
  private async matchingCount(accountId: string, query: FileListQuery, matches: SQL | undefined): Promise<number | undefined> {
    const narrowing = this.narrowing(query);
    if (narrowing.length === 0) return undefined;
    if (narrowing.length === 1 && query.folderId === 'root') {
      const inFolders = sql`coalesce((select sum(${folders.fileCount}) from ${folders} where ${folders.accountId} = ${accountId}), 0)`;
      const [row] = await this.db.select({ n: sql<number>`greatest(${accounts.fileCount} - ${inFolders}, 0)::int` }).from(accounts).where(eq(accounts.id, accountId));
      return row?.n ?? 0;
    }
    if (narrowing.length === 1 && query.folderId) {
      const [row] = await this.db.select({ n: folders.fileCount }).from(folders).where(and(eq(folders.accountId, accountId), eq(folders.id, query.folderId)));
      return row?.n ?? 0;
    }
    const [row] = await this.db.select({ n: count() }).from(files).where(matches);
    return row?.n ?? 0;
  }

  /**
   * From the `offset`-th file of the order on: its sort keys are found first, reading only the index
   * that holds them (an OFFSET on the rows would read every skipped row, half a million for the
   * middle page of a million files), and the page is read from there.
   */
  private fromPosition(matches: SQL | undefined, keys: AnyPgColumn[], offset: number, sortOrder: 'asc' | 'desc'): SQL {
    const order = sortOrder === 'asc' ? asc : desc;
    const position = this.db
      .select(Object.fromEntries(keys.map((key, i) => [`k${i}`, key])))
      .from(files)
      .where(matches)
      .orderBy(...keys.map((key) => order(key)))
      .offset(offset)
      .limit(1);
    return sql`(${sql.join(keys, sql`, `)}) ${sql.raw(sortOrder === 'asc' ? '>=' : '<=')} (${position})`;
  }

  /**
   * Past a cursor's file in upload-time order. Its time is read again, so the exact value decides (a
   * Date holds only milliseconds); a file gone since keeps the position the cursor carried.
   */
  private after(accountId: string, { id, createdAt }: { id: string; createdAt: Date }, sortOrder: 'asc' | 'desc'): SQL {
    const anchor = sql`coalesce((select ${files.createdAt} from ${files} where ${files.accountId} = ${accountId} and ${files.id} = ${id}::uuid), ${createdAt.toISOString()}::timestamptz)`;
    return sortOrder === 'asc' ? sql`(${files.createdAt}, ${files.id}) > (${anchor}, ${id}::uuid)` : sql`(${files.createdAt}, ${files.id}) < (${anchor}, ${id}::uuid)`;
  }

  /** The conditions that narrow a listing: folder, name search, kind and upload dates. */
  private narrowing(query: FileListQuery): SQL[] {
    const conditions: SQL[] = [];
    if (query.folderId === 'root') conditions.push(isNull(files.folderId));
    else if (query.folderId) conditions.push(eq(files.folderId, query.folderId));
    if (query.search) {
      // Same expression as the trigram index, so the index serves the substring search.
      const pattern = `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      conditions.push(sql`(${files.filename} || E'\\x01' || ${files.originalName}) ilike ${pattern}`);
    }
    if (query.kind) conditions.push(kindCondition(query.kind));
    if (query.uploadedAfter) conditions.push(sql`${files.createdAt} >= ${query.uploadedAfter.toISOString()}::timestamptz`);
    if (query.uploadedBefore) conditions.push(sql`${files.createdAt} < ${query.uploadedBefore.toISOString()}::timestamptz`);
    return conditions;
  }

  /**
   * Renames a file (no value: no such file); a name the account already uses is `taken` (the unique
   * index decides).
   */
  async rename(accountId: string, filename: string, newFilename: string, mimeType: string): Promise<Outcome<FileRow | undefined, 'taken'>> {
    return outcomeOf(async () => {
      const [row] = await this.db
        .update(files)
        .set({ filename: newFilename, mimeType })
        .where(and(eq(files.accountId, accountId), eq(files.filename, filename)))
        .returning();
      return done(row);
    }, { unique: 'taken' });
  }

  /**
   * Points a file at a new object in one transaction, adjusting the account's storage by the size
   * difference only while it stays within `storageLimit`. The verdict on the old content goes with
   * it: the new content is unjudged until moderation says otherwise. A quarantine stays until then
   * when `holdQuarantine` (the new content will be judged). The old content's thumbnails go with it
   * too. Returns the row before and after (no value: no such file), or `storage_full`.
   */
  async replace(
    accountId: string,
    filename: string,
    next: Replacement,
    storageLimit: number,
    holdQuarantine: boolean,
  ): Promise<Outcome<{ before: FileRow; after: FileRow } | undefined, 'storage_full'>> {
    return outcomeOf(() =>
      this.db.transaction(async (tx) => {
        const [before] = await tx
          .select()
          .from(files)
          .where(and(eq(files.accountId, accountId), eq(files.filename, filename)))
          .for('update');
        if (!before) return done(undefined);
        const delta = next.size - before.size;
        const charged = await tx
          .update(accounts)
          .set({ storageUsed: sql`greatest(${accounts.storageUsed} + ${delta}, 0)` })
          .where(and(eq(accounts.id, accountId), sql`(${delta} <= 0 or ${accounts.storageUsed} + ${delta} <= ${storageLimit})`))
          .returning({ id: accounts.id });
        if (charged.length === 0) return refused('storage_full');
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
            thumbnailAt: null,
            thumbnailWidth: null,
            thumbnailHeight: null,
          })
          .where(eq(files.id, before.id))
          .returning();
        return done({ before, after: after! });
      }),
    );
  }

  /** Sets the file's privacy; an actual change bumps its privacy version (new thumbnail URLs). */
  async setPrivate(accountId: string, filename: string, isPrivate: boolean): Promise<FileRow | undefined> {
    const [row] = await refusingUnstorableText(() =>
      this.db
        .update(files)
        .set({ isPrivate, privacyVersion: sql`${files.privacyVersion} + (${files.isPrivate} <> ${isPrivate})::int` })
        .where(and(eq(files.accountId, accountId), eq(files.filename, filename)))
        .returning(),
    );
    return row;
  }

  /**
   * Moves the named files of the account into a folder (null = root); returns the files moved, or
   * `folder_gone` when the folder was deleted since the caller found it.
   */
  async move(accountId: string, filenames: string[], folderId: string | null): Promise<Outcome<FileRow[], 'folder_gone'>> {
    if (filenames.length === 0) return done([]);
    return outcomeOf(async () => {
      const rows = await this.db
        .update(files)
        .set({ folderId })
        .where(and(eq(files.accountId, accountId), inArray(files.filename, filenames)))
        .returning();
      return done(rows);
    }, { foreignKey: 'folder_gone' });
  }

  /** Removes an account's file and gives its storage back, atomically. */
  async deleteOwned(accountId: string, filename: string): Promise<FileRow | undefined> {
    return refusingUnstorableText(() =>
      this.db.transaction(async (tx) => {
        const [row] = await tx
          .delete(files)
          .where(and(eq(files.accountId, accountId), eq(files.filename, filename)))
          .returning();
        if (row) await releaseStorage(tx, accountId, row.size);
        return row;
      }),
    );
  }
}

/** A removed file's bytes and count go back to its account, in the transaction that removed it. */
export async function releaseStorage(tx: Transaction, accountId: string, size: number) {
  await tx
    .update(accounts)
    .set({ storageUsed: sql`greatest(${accounts.storageUsed} - ${size}, 0)`, fileCount: sql`greatest(${accounts.fileCount} - 1, 0)` })
    .where(eq(accounts.id, accountId));
}
