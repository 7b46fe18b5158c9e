import { and, desc, eq, getTableColumns, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { accounts, files, shareLinks, type FileRow, type ShareLinkRow } from '../db/schema.js';
import { type Outcome, done, refused } from './outcome.js';

export type NewShareLink = Pick<ShareLinkRow, 'accountId' | 'fileId' | 'folderId' | 'tokenHash' | 'tokenNonce' | 'passwordHash' | 'maxViews' | 'expiresAt'>;

/** A link with its file's current name (null for a folder link) and its owner's name. */
export interface ShareLinkWithTarget {
  link: ShareLinkRow;
  filename: string | null;
  username: string;
}

/** A link as a visitor reaches it, with its file (for a file link). */
export interface OpenedShareLink extends ShareLinkWithTarget {
  file: FileRow | null;
}

const LIST_LIMIT = 200;

const withTarget = { link: shareLinks, filename: files.filename, username: accounts.username };

/**
 * Share links. The account's statements take its id; visitors reach a link only by its token's
 * hash, and its views only through `countView`.
 */
export class ShareLinkRepository {
  constructor(private readonly db: Database) {}

  async create(link: NewShareLink): Promise<ShareLinkRow> {
    const [row] = await this.db.insert(shareLinks).values(link).returning();
    return row!;
  }

  async listOwned(accountId: string): Promise<ShareLinkWithTarget[]> {
    return this.db
      .select(withTarget)
      .from(shareLinks)
      .innerJoin(accounts, eq(accounts.id, shareLinks.accountId))
      .leftJoin(files, eq(files.id, shareLinks.fileId))
      .where(eq(shareLinks.accountId, accountId))
      .orderBy(desc(shareLinks.createdAt), desc(shareLinks.id))
      .limit(LIST_LIMIT);
  }

  async findOwned(accountId: string, id: string): Promise<ShareLinkWithTarget | undefined> {
    const [row] = await this.db
      .select(withTarget)
      .from(shareLinks)
      .innerJoin(accounts, eq(accounts.id, shareLinks.accountId))
      .leftJoin(files, eq(files.id, shareLinks.fileId))
      .where(and(eq(shareLinks.id, id), eq(shareLinks.accountId, accountId)));
    return row;
  }

  /** Deletes the account's link; false when it has none of that id. */
  async deleteOwned(accountId: string, id: string): Promise<boolean> {
    const rows = await this.db
      .delete(shareLinks)
      .where(and(eq(shareLinks.id, id), eq(shareLinks.accountId, accountId)))
      .returning({ id: shareLinks.id });
    return rows.length === 1;
  }

  /** The visitor's lookup: by the hash of the token in the link, with the file of a file link. */
  async findByTokenHash(tokenHash: string): Promise<OpenedShareLink | undefined> {
    const [row] = await this.db
      .select({ ...withTarget, file: getTableColumns(files) })
      .from(shareLinks)
      .innerJoin(accounts, eq(accounts.id, shareLinks.accountId))
      .leftJoin(files, eq(files.id, shareLinks.fileId))
      .where(eq(shareLinks.tokenHash, tokenHash));
    if (!row) return undefined;
    return { link: row.link, filename: row.filename, username: row.username, file: row.file?.id ? row.file : null };
  }

  /**
   * Counts one view in one conditional UPDATE, so concurrent views across processes never pass the
   * limit: refused when the link is gone, expired or has no view left.
   */
  async countView(id: string): Promise<Outcome<number, 'spent'>> {
    const [row] = await this.db
      .update(shareLinks)
      .set({ views: sql`${shareLinks.views} + 1` })
      .where(
        and(
          eq(shareLinks.id, id),
          or(isNull(shareLinks.maxViews), lt(shareLinks.views, shareLinks.maxViews)),
          or(isNull(shareLinks.expiresAt), gt(shareLinks.expiresAt, sql`now()`)),
        ),
      )
      .returning({ views: shareLinks.views });
    return row ? done(row.views) : refused('spent');
  }
}
