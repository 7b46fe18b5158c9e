import { eq, getTableColumns, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { accounts, files, type FileRow } from '../db/schema.js';
import type { AccountUsage } from '../principal.js';
import { utcDay } from '../time.js';
import { Batcher, oneByOne, type Outcome as BatchOutcome } from '../batcher.js';
import { done, refused, type Outcome } from './outcome.js';
import { isRowRefusal, outcomeOf } from './pg-errors.js';

export type NewFile = typeof files.$inferInsert;
/**
 * A new file as an upload hands it in: its URL style comes from its account (or is 'anonymous'),
 * and without a folder (a folder key's) it goes to the account's default upload folder, if any.
 */
export type ChargedFile = Omit<NewFile, 'urlFormat'>;

/**
 * Why an upload was not recorded: a limit it would pass, its generated name taken by a concurrent
 * upload, or its folder deleted while it was being received.
 */
export type ChargeRefusal = 'daily_limit_reached' | 'storage_full' | 'taken' | 'folder_gone';
export type ChargeOutcome = Outcome<FileRow, ChargeRefusal>;

export interface UploadCharge {
  dailyLimit: number;
  storageLimit: number;
}

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

/**
 * JSON.stringify writes half a surrogate pair (a name cut in the middle of an emoji) as an escape
 * that jsonb refuses; as a text parameter the driver would have sent U+FFFD in its place. Same here.
 */
function wellFormed(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? value.replace(/\p{Cs}/gu, '\uFFFD') : value;
}

interface ChargedUpload {
  file: ChargedFile;
  charge: UploadCharge;
}

/**
 * Records uploads as files and charges them to their account's daily count and storage, together
 * and atomically. Anonymous uploads are recorded without a charge.
 */
export class UploadChargeRepository {
  // Group commit: concurrent charges of one account share one statement and one commit instead of
  // queueing on the account row's lock (2x uploads a second for one account, docs/decisions.md).
  private readonly charges = new Batcher<ChargedUpload, ChargeOutcome>((accountId, uploads) => this.chargeBatch(accountId, uploads));

  constructor(private readonly db: Database) {}

  /**
   * Records an upload and charges it: the account row is updated only while today's count and the
   * storage stay within their limits (a row-locked conditional UPDATE), and the file is inserted
   * only if that happened, in one statement. No number of concurrent uploads can pass a limit, and
   * a failure anywhere (a taken name too) leaves nothing charged. A charged file takes its URL
   * style, its privacy (private by default) and, when it names no folder, the default upload folder
   * from the account row it was charged to, as they are at that moment.
   */
  async insertCharged(file: ChargedFile, charge?: UploadCharge): Promise<ChargeOutcome> {
    if (!file.accountId || !charge) {
      return outcomeOf(async () => done((await this.db.insert(files).values({ ...file, urlFormat: 'anonymous' }).returning())[0]!), UPLOAD_REFUSALS);
    }
    return this.charges.submit(file.accountId, { file, charge });
  }

  async usageOf(accountId: string): Promise<AccountUsage | undefined> {
    const [row] = await this.db
      .select({ storageUsed: accounts.storageUsed, usageDay: accounts.usageDay, usageDayCount: accounts.usageDayCount })
      .from(accounts)
      .where(eq(accounts.id, accountId));
    return row;
  }

  /**
   * One statement for the whole batch while it fits the limits and breaks no constraint; else one
   * upload after another, so exactly those that fit are taken and each failure is its own upload's.
   */
  private async chargeBatch(accountId: string, uploads: ChargedUpload[]): Promise<BatchOutcome<ChargeOutcome>[]> {
    if (uploads.length > 1) {
      // What one upload holds (a taken name, a deleted folder, a NUL) fails the statement for all:
      // then they go one by one. Any other failure (the database gone) is every upload's answer.
      const rows = await this.insertChargedRows(accountId, uploads).catch((err: unknown) => {
        if (isRowRefusal(err)) return [];
        throw err;
      });
      if (rows.length === uploads.length) {
        const byKey = new Map(rows.map((row) => [row.objectKey, row]));
        return uploads.map(({ file }) => ({ ok: true, value: done(byKey.get(file.objectKey)!) }));
      }
    }
    return oneByOne(uploads, (upload) => this.insertChargedOne(accountId, upload));
  }

  private async insertChargedOne(accountId: string, upload: ChargedUpload): Promise<ChargeOutcome> {
    const day = utcDay();
    const charged = await outcomeOf(async () => done((await this.insertChargedRows(accountId, [upload], day))[0]), UPLOAD_REFUSALS);
    if (!charged.ok) return charged;
    if (charged.value) return done(charged.value);
    // Nothing was charged: the daily count or the storage would have passed its limit.
    const [account] = await this.db.select().from(accounts).where(eq(accounts.id, accountId));
    const countFull = account?.usageDay === day && account.usageDayCount >= upload.charge.dailyLimit;
    return refused(countFull ? 'daily_limit_reached' : 'storage_full');
  }

  /** The uploads as one JSON array, charged and inserted in one statement; no rows when they do not fit. */
  private async insertChargedRows(accountId: string, uploads: ChargedUpload[], day = utcDay()): Promise<FileRow[]> {
    // The strictest of the batch: a plan changed between its uploads is then checked one by one.
    const dailyLimit = Math.min(...uploads.map((u) => u.charge.dailyLimit));
    const storageLimit = Math.min(...uploads.map((u) => u.charge.storageLimit));
    const batch = JSON.stringify(
      uploads.map(({ file }) => ({
        folder_id: file.folderId ?? null,
        filename: file.filename,
        original_name: file.originalName,
        object_key: file.objectKey,
        short_code: file.shortCode,
        size: file.size,
        sha256: file.sha256 ?? null,
        mime_type: file.mimeType,
        source: file.source,
        expires_at: file.expiresAt ?? null,
        expiry: file.expiry ?? null,
        deletion_token_hash: file.deletionTokenHash,
      })),
      wellFormed,
    );
    const result = await this.db.execute(sql`
      with batch as (
        select * from jsonb_to_recordset(${batch}::jsonb) as f(
          folder_id uuid, filename text, original_name text, object_key text, short_code text, size bigint,
          sha256 text, mime_type text, source text, expires_at timestamptz, expiry text, deletion_token_hash text)
      ), total as (
        select count(*)::int as uploads, sum(size)::bigint as bytes from batch
      ), charged as (
        update accounts set
          storage_used = storage_used + total.bytes,
          file_count = file_count + total.uploads,
          upload_count = upload_count + total.uploads,
          last_used_at = now(),
          usage_day_count = case when usage_day = ${day}::date then usage_day_count + total.uploads else total.uploads end,
          usage_day = ${day}::date
        from total
        where id = ${accountId}::uuid
          and storage_used + total.bytes <= ${storageLimit}::bigint
          and case when usage_day = ${day}::date then usage_day_count else 0 end + total.uploads <= ${dailyLimit}::int
        returning accounts.id, accounts.url_format, accounts.default_upload_folder_id, accounts.private_by_default
      )
      insert into files (account_id, folder_id, filename, original_name, object_key, short_code, size, sha256, mime_type,
                         source, url_format, expires_at, expiry, deletion_token_hash, is_private)
      select charged.id, coalesce(batch.folder_id, charged.default_upload_folder_id), batch.filename, batch.original_name,
             batch.object_key, batch.short_code, batch.size, batch.sha256, batch.mime_type, batch.source, charged.url_format,
             batch.expires_at, batch.expiry, batch.deletion_token_hash, charged.private_by_default
      from charged, batch
      returning *`);
    // Both drivers (node-postgres, PGlite) answer raw rows under `rows`.
    return (result as unknown as { rows: Record<string, unknown>[] }).rows.map(fromRow);
  }
}

const UPLOAD_REFUSALS = { unique: 'taken', foreignKey: 'folder_gone' } as const;
