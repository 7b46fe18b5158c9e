import { z } from 'zod';
import type { AccountRow, FolderRow } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { Plans } from '../plans.js';
import type { FolderRepository } from '../repositories/folder.repository.js';
import { isUniqueViolation } from '../repositories/pg-errors.js';
import { validate } from '../validation.js';

export const folderNameSchema = z
  .string({ error: 'name is required' })
  .trim()
  .min(1, 'name must not be empty')
  .max(40, 'name must be at most 40 characters')
  .refine((name) => !/[\u0000-\u001f\u007f]/.test(name), 'name must not contain control characters');

/** A folder id that is not a UUID cannot exist; treat it like any unknown folder. */
export const isId = (value: string) => z.uuid().safeParse(value).success;

export function toFolder(row: FolderRow & { fileCount?: number }) {
  return {
    id: row.id,
    name: row.name,
    userId: row.accountId,
    createdAt: row.createdAt.toISOString(),
    ...(row.fileCount !== undefined ? { fileCount: row.fileCount } : {}),
  };
}

export class FolderService {
  constructor(
    private readonly folders: FolderRepository,
    private readonly plans: Plans,
  ) {}

  async list(account: AccountRow) {
    return (await this.folders.list(account.id)).map(toFolder);
  }

  /** Names are unique per account ignoring case; Free accounts have a folder limit. */
  async create(account: AccountRow, input: unknown) {
    const name = validate(folderNameSchema, input);
    try {
      return toFolder(await this.folders.create(account.id, name, this.plans.of(account.plan).maxFolders));
    } catch (err) {
      if (isUniqueViolation(err)) throw AppError.conflict(`A folder named "${name}" already exists`);
      throw err;
    }
  }

  /** Its files move to the root library, its folder key is revoked, a default pointing at it resets. */
  async delete(account: AccountRow, id: string): Promise<void> {
    if (!isId(id) || !(await this.folders.delete(account.id, id))) throw AppError.notFound('Folder not found');
  }

  async get(account: AccountRow, id: string): Promise<FolderRow> {
    const folder = isId(id) ? await this.folders.find(account.id, id) : undefined;
    if (!folder) throw AppError.notFound('Folder not found');
    return folder;
  }

  async setDefault(account: AccountRow, folderId: string | null): Promise<string | null> {
    if (folderId !== null) await this.get(account, folderId);
    await this.folders.setDefault(account.id, folderId);
    return folderId;
  }
}
