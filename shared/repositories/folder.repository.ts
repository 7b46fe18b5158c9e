import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { accounts, folders, type FolderRow } from '../db/schema.js';
import { insertWithinLimit } from './account-limit.js';
import { done, type Outcome } from './outcome.js';
import { outcomeOf } from './pg-errors.js';

/** All SQL on folders; every statement is scoped to the owning account. */
export class FolderRepository {
  constructor(private readonly db: Database) {}

  /** The account's folders, each with its file count (kept on the row by the database). */
  async list(accountId: string): Promise<FolderRow[]> {
    return this.db.select().from(folders).where(eq(folders.accountId, accountId)).orderBy(folders.createdAt, folders.name);
  }

  async find(accountId: string, id: string): Promise<FolderRow | undefined> {
    const [row] = await this.db
      .select()
      .from(folders)
      .where(and(eq(folders.accountId, accountId), eq(folders.id, id)));
    return row;
  }

  /**
   * Creates a folder unless the account already has `maxFolders` (`limit_reached`). A name the
   * account already uses, in any case, is `taken` (the unique index decides).
   */
  async create(accountId: string, name: string, maxFolders: number | null): Promise<Outcome<FolderRow, 'limit_reached' | 'taken'>> {
    return outcomeOf(
      () =>
        insertWithinLimit(this.db, accountId, folders.accountId, maxFolders ?? Number.POSITIVE_INFINITY, async (tx) => {
          const [row] = await tx.insert(folders).values({ accountId, name }).returning();
          return row!;
        }),
      { unique: 'taken' },
    );
  }

  /**
   * Deletes a folder. The schema's foreign keys do the rest in the same statement: its files move
   * to the root (folder_id set null), its folder key is deleted, and a default pointing at it resets.
   */
  async delete(accountId: string, id: string): Promise<FolderRow | undefined> {
    const [row] = await this.db
      .delete(folders)
      .where(and(eq(folders.accountId, accountId), eq(folders.id, id)))
      .returning();
    return row;
  }

  /**
   * Shares the folder as an album under `shareId`, unless it is shared already: then it keeps the
   * album it has, so sharing twice (or two shares at once) hands out one link.
   */
  async share(accountId: string, id: string, shareId: string): Promise<FolderRow | undefined> {
    const [row] = await this.db
      .update(folders)
      .set({ shareId: sql`coalesce(${folders.shareId}, ${shareId})`, sharedAt: sql`coalesce(${folders.sharedAt}, now())` })
      .where(and(eq(folders.accountId, accountId), eq(folders.id, id)))
      .returning();
    return row;
  }

  /** Ends the folder's album; its link is dead from this statement on. */
  async unshare(accountId: string, id: string): Promise<FolderRow | undefined> {
    const [row] = await this.db
      .update(folders)
      .set({ shareId: null, sharedAt: null })
      .where(and(eq(folders.accountId, accountId), eq(folders.id, id)))
      .returning();
    return row;
  }

  /** `folder_gone` when the folder was deleted since the caller found it. */
  async setDefault(accountId: string, folderId: string | null): Promise<Outcome<void, 'folder_gone'>> {
    return outcomeOf(
      async () => done(void (await this.db.update(accounts).set({ defaultUploadFolderId: folderId }).where(eq(accounts.id, accountId)))),
      { foreignKey: 'folder_gone' },
    );
  }
}
