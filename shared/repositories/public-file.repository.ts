import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { files, type FileRow } from '../db/schema.js';
import { asDomainErrors } from './pg-errors.js';

/**
 * Lookups by what a public URL names without an account: an anonymous upload's name, a short code.
 * They take no owner because the URL is all a visitor has, so they are kept out of FileRepository,
 * where every statement is the owner's: only the service that serves hosted files gets this.
 */
export class PublicFileRepository {
  constructor(private readonly db: Database) {}

  async findAnonymous(filename: string): Promise<FileRow | undefined> {
    const [row] = await asDomainErrors(() =>
      this.db
        .select()
        .from(files)
        .where(and(isNull(files.accountId), eq(files.filename, filename))),
    );
    return row;
  }

  async findByShortCode(code: string): Promise<FileRow | undefined> {
    const [row] = await asDomainErrors(() => this.db.select().from(files).where(eq(files.shortCode, code)));
    return row;
  }
}
