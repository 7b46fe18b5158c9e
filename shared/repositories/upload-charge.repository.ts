import { eq, getTableColumns, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { type AccountRow, accounts, files, type FileRow } from '../db/schema.js';
import { AppError } from '../errors.js';
import { secondsUntilNextUtcDay, utcDay } from '../time.js';
import { asDomainErrors } from './pg-errors.js';

export type NewFile = typeof files.$inferInsert;
/**
 * A new file as an upload hands it in: its URL style comes from its account (or is 'anonymous'),
 * and without a folder (a folder key's) it goes to the account's default upload folder, if any.
 */
export type ChargedFile = Omit<NewFile, 'urlFormat'>;

/** What an account has used of its limits: storage, and uploads on the day `usageDay`. */
export type AccountUsage = Pick<AccountRow, 'storageUsed' | 'usageDay' | 'usageDayCount'>;

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
 * Records uploads as files and charges them to their account's daily count and storage, together
 * and atomically. Anonymous uploads are recorded without a charge.
 */
export class UploadChargeRepository {
  constructor(private readonly db: Database) {}

  /**
   * Records an upload and charges it in one statement: the account row is updated only while
   * today's count and the storage stay within their limits (a row-locked conditional UPDATE), and
   * the file is inserted only if that happened. No number of concurrent uploads can pass a limit,
   * and a failure anywhere (a taken name too) leaves nothing charged. A charged file takes its URL
   * style, and when it names no folder the default upload folder, from the account row it was
   * charged to, as they are at that moment.
   */
  async insertCharged(file: ChargedFile, charge?: UploadCharge): Promise<FileRow> {
    return asDomainErrors(() => this.insertChargedRow(file, charge), {
      unique: () => AppError.conflict('The generated name was taken by a concurrent upload; retry'),
      foreignKey: () => AppError.conflict('The destination folder was deleted during the upload; retry'),
    });
  }

  async usageOf(accountId: string): Promise<AccountUsage | undefined> {
    const [row] = await this.db
      .select({ storageUsed: accounts.storageUsed, usageDay: accounts.usageDay, usageDayCount: accounts.usageDayCount })
      .from(accounts)
      .where(eq(accounts.id, accountId));
    return row;
  }

  private async insertChargedRow(file: ChargedFile, charge?: UploadCharge): Promise<FileRow> {
    if (!file.accountId || !charge) {
      const [row] = await this.db.insert(files).values({ ...file, urlFormat: 'anonymous' }).returning();
      return row!;
    }
    const day = utcDay();
    const result = await this.db.execute(sql`
      with charged as (
        update accounts set
          storage_used = storage_used + ${file.size},
          file_count = file_count + 1,
          upload_count = upload_count + 1,
          last_used_at = now(),
          usage_day_count = case when usage_day = ${day}::date then usage_day_count + 1 else 1 end,
          usage_day = ${day}::date
        where id = ${file.accountId}::uuid
          and storage_used + ${file.size} <= ${charge.storageLimit}::bigint
          and case when usage_day = ${day}::date then usage_day_count else 0 end + 1 <= ${charge.dailyLimit}::int
        returning accounts.id, accounts.url_format, accounts.default_upload_folder_id
      )
      insert into files (account_id, folder_id, filename, original_name, object_key, short_code, size, mime_type,
                         source, url_format, expires_at, expiry, deletion_token_hash)
      select charged.id, coalesce(${file.folderId ?? null}::uuid, charged.default_upload_folder_id), ${file.filename},
             ${file.originalName}, ${file.objectKey}, ${file.shortCode}, ${file.size}, ${file.mimeType}, ${file.source}, charged.url_format,
             ${file.expiresAt?.toISOString() ?? null}::timestamptz, ${file.expiry ?? null}, ${file.deletionTokenHash}
      from charged
      returning *`);
    // Both drivers (node-postgres, PGlite) answer raw rows under `rows`.
    const [raw] = (result as unknown as { rows: Record<string, unknown>[] }).rows;
    if (raw) return fromRow(raw);
    throw await this.refusal(file.accountId, charge.dailyLimit, day);
  }

  /** Which limit refused a charge. */
  private async refusal(accountId: string, dailyLimit: number, day: string): Promise<AppError> {
    const [account] = await this.db.select().from(accounts).where(eq(accounts.id, accountId));
    if (account?.usageDay === day && account.usageDayCount >= dailyLimit) {
      return AppError.tooManyRequests('Daily upload limit reached', secondsUntilNextUtcDay());
    }
    return AppError.forbidden('Storage limit reached: delete files or upgrade the plan');
  }
}
