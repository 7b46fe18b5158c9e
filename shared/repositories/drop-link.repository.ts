import { and, desc, eq, gt, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { dropLinks, files, type FileRow } from '../db/schema.js';

export type DropLinkRow = typeof dropLinks.$inferSelect;
export type NewDropLink = Pick<DropLinkRow, 'accountId' | 'folderId' | 'tokenHash' | 'tokenSealed' | 'note' | 'maxSizeBytes' | 'expiresAt'>;

/** A link with the file it received (null until then, or once that file is deleted). */
export interface DropLinkWithFile {
  link: DropLinkRow;
  file: FileRow | null;
}

const LIST_LIMIT = 100;

/**
 * Drop links. The account's statements take its id; a cancelled link is no longer the account's
 * to see. The public drop page reaches a link only by its token's hash (`findByTokenHash`), and the
 * drop itself only through the claim statements below.
 */
export class DropLinkRepository {
  constructor(private readonly db: Database) {}

  async create(link: NewDropLink): Promise<DropLinkRow> {
    const [row] = await this.db.insert(dropLinks).values(link).returning();
    return row!;
  }

  async listOwned(accountId: string): Promise<DropLinkWithFile[]> {
    return this.db
      .select({ link: dropLinks, file: files })
      .from(dropLinks)
      .leftJoin(files, eq(files.id, dropLinks.fileId))
      .where(and(eq(dropLinks.accountId, accountId), ne(dropLinks.status, 'cancelled')))
      .orderBy(desc(dropLinks.createdAt))
      .limit(LIST_LIMIT);
  }

  async findOwned(accountId: string, id: string): Promise<DropLinkWithFile | undefined> {
    const [row] = await this.db
      .select({ link: dropLinks, file: files })
      .from(dropLinks)
      .leftJoin(files, eq(files.id, dropLinks.fileId))
      .where(and(eq(dropLinks.id, id), eq(dropLinks.accountId, accountId), ne(dropLinks.status, 'cancelled')));
    return row;
  }

  /** Cancels a link that is not cancelled yet; undefined when there is none of this account's. */
  async cancelOwned(accountId: string, id: string): Promise<DropLinkRow | undefined> {
    const [row] = await this.db
      .update(dropLinks)
      .set({ status: 'cancelled' })
      .where(and(eq(dropLinks.id, id), eq(dropLinks.accountId, accountId), ne(dropLinks.status, 'cancelled')))
      .returning();
    return row;
  }

  /** The public drop page's lookup: by the hash of the token in the link, of any account. */
  async findByTokenHash(tokenHash: string): Promise<DropLinkRow | undefined> {
    const [row] = await this.db.select().from(dropLinks).where(eq(dropLinks.tokenHash, tokenHash));
    return row;
  }

  /**
   * Takes the link for one drop: one conditional UPDATE, so of concurrent drops exactly one gets the
   * row (the others see it no longer pending). `received_at` stays null until the file is attached,
   * which is how a claim in flight is told from a link that received its file. The body is stored
   * before the claim, so a claim lives milliseconds; one older than `lapseMs` was left by a process
   * that died before committing, and the link can be taken again.
   */
  async claim(id: string, lapseMs: number): Promise<boolean> {
    const lapsed = and(eq(dropLinks.status, 'received'), isNull(dropLinks.receivedAt), lt(dropLinks.claimedAt, new Date(Date.now() - lapseMs)));
    const rows = await this.db
      .update(dropLinks)
      .set({ status: 'received', claimedAt: sql`now()` })
      .where(and(eq(dropLinks.id, id), or(eq(dropLinks.status, 'pending'), lapsed), gt(dropLinks.expiresAt, sql`now()`)))
      .returning({ id: dropLinks.id });
    return rows.length === 1;
  }

  /** Completes a claim with the committed file (stored names are unique per account). */
  async attachFile(id: string, accountId: string, filename: string): Promise<void> {
    await this.db
      .update(dropLinks)
      .set({
        fileId: sql`(select ${files.id} from ${files} where ${files.accountId} = ${accountId}::uuid and ${files.filename} = ${filename})`,
        receivedAt: sql`now()`,
      })
      .where(and(eq(dropLinks.id, id), eq(dropLinks.status, 'received'), isNull(dropLinks.receivedAt)));
  }

  /** Gives back a claim whose file could not be committed, so the link can be used again. */
  async releaseClaim(id: string): Promise<void> {
    await this.db
      .update(dropLinks)
      .set({ status: 'pending' })
      .where(and(eq(dropLinks.id, id), eq(dropLinks.status, 'received'), isNull(dropLinks.receivedAt)));
  }
}
