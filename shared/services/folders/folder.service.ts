import { z } from 'zod';
import type { FolderRow } from '../../db/schema.js';
import { AppError } from '../../errors.js';
import type { Plans } from '../../plans.js';
import type { Principal } from '../../principal.js';
import type { FolderRepository } from '../../repositories/folder.repository.js';

/** A folder id that is not a UUID cannot exist; treat it like any unknown folder. */
export const isId = (value: string) => z.uuid().safeParse(value).success;

/** Where a folder shared under `shareId` is seen (architecture.md §3); its zip is `{url}/download`. */
export function albumUrl(siteUrl: string, shareId: string): string {
  return `${new URL(siteUrl).origin}/album/${shareId}`;
}

/** An unknown folder, another account's, or one deleted while a request used it. */
export function folderNotFound(): AppError {
  return AppError.notFound('Folder not found');
}

export class FolderService {
  constructor(
    private readonly folders: FolderRepository,
    private readonly plans: Plans,
    private readonly siteUrl: string,
  ) {}

  async list(account: Principal) {
    return (await this.folders.list(account.id)).map((row) => this.toFolder(row));
  }

  /** Names are unique per account ignoring case (409); the plan may limit how many an account has (403). */
  async create(account: Principal, name: string) {
    const { maxFolders } = this.plans.of(account.plan);
    const created = await this.folders.create(account.id, name, maxFolders);
    if (!created.ok) {
      throw created.reason === 'limit_reached'
        ? AppError.forbidden(`The plan allows ${maxFolders} folders; upgrade to Pro for unlimited folders`)
        : AppError.conflict(`A folder named "${name}" already exists`);
    }
    return this.toFolder(created.value);
  }

  /** Its files move to the root library, its folder key is revoked, a default pointing at it resets. */
  async delete(account: Principal, id: string): Promise<void> {
    if (!isId(id) || !(await this.folders.delete(account.id, id))) throw folderNotFound();
  }

  async get(account: Principal, id: string): Promise<FolderRow> {
    const folder = isId(id) ? await this.folders.find(account.id, id) : undefined;
    if (!folder) throw folderNotFound();
    return folder;
  }

  async setDefault(account: Principal, folderId: string | null): Promise<string | null> {
    if (folderId !== null) await this.get(account, folderId);
    if (!(await this.folders.setDefault(account.id, folderId)).ok) throw folderNotFound();
    return folderId;
  }

  private toFolder(row: FolderRow) {
    return {
      id: row.id,
      name: row.name,
      userId: row.accountId,
      createdAt: row.createdAt.toISOString(),
      fileCount: row.fileCount,
      shared: row.shareId !== null,
      shareUrl: row.shareId !== null ? albumUrl(this.siteUrl, row.shareId) : null,
    };
  }
}
