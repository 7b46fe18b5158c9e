import { and, desc, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { accounts, folderKeys, folders, type AccountRow, type FolderKeyRow } from '../db/schema.js';
import { done, type Outcome } from './outcome.js';
import { outcomeOf } from './pg-errors.js';

export type FolderKeyWithName = FolderKeyRow & { folderName: string };

/** All SQL on folder keys; management is scoped to the owner, upload auth looks keys up by hash. */
export class FolderKeyRepository {
  constructor(private readonly db: Database) {}

  async list(accountId: string): Promise<FolderKeyWithName[]> {
    const rows = await this.db
      .select({ key: folderKeys, folderName: folders.name })
      .from(folderKeys)
      .innerJoin(folders, eq(folders.id, folderKeys.folderId))
      .where(eq(folderKeys.accountId, accountId))
      .orderBy(desc(folderKeys.createdAt));
    return rows.map((r) => ({ ...r.key, folderName: r.folderName }));
  }

  /** Issues the folder's key, replacing any previous one (which stops working at once); `folder_gone` if it was deleted. */
  async replace(accountId: string, folderId: string, key: { hash: string; sealed: string }): Promise<Outcome<FolderKeyRow, 'folder_gone'>> {
    return outcomeOf(async () => {
      const [row] = await this.db
        .insert(folderKeys)
        .values({ accountId, folderId, keyHash: key.hash, keySealed: key.sealed })
        .onConflictDoUpdate({
          target: folderKeys.folderId,
          set: { id: sql`gen_random_uuid()`, keyHash: key.hash, keySealed: key.sealed, createdAt: new Date(), lastUsedAt: null },
        })
        .returning();
      return done(row!);
    }, { foreignKey: 'folder_gone' });
  }

  async delete(accountId: string, folderId: string): Promise<FolderKeyRow | undefined> {
    const [row] = await this.db
      .delete(folderKeys)
      .where(and(eq(folderKeys.accountId, accountId), eq(folderKeys.folderId, folderId)))
      .returning();
    return row;
  }

  /** The key and its account, for upload auth. */
  async findByHash(hash: string): Promise<{ key: FolderKeyRow; account: AccountRow } | undefined> {
    const [row] = await this.db
      .select({ key: folderKeys, account: accounts })
      .from(folderKeys)
      .innerJoin(accounts, eq(accounts.id, folderKeys.accountId))
      .where(eq(folderKeys.keyHash, hash));
    return row;
  }

  async touch(id: string): Promise<void> {
    await this.db.update(folderKeys).set({ lastUsedAt: new Date() }).where(eq(folderKeys.id, id));
  }
}
