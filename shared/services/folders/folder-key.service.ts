import { randomHex, sha256, type SecretBox } from '../../crypto.js';
import type { FolderKeyRow } from '../../db/schema.js';
import { AppError } from '../../errors.js';
import type { Plans } from '../../plans.js';
import { type AccountUsage, type Principal, principalOf, usageSnapshotOf } from '../../principal.js';
import type { FolderKeyRepository } from '../../repositories/folder-key.repository.js';
import { folderNotFound, type FolderService } from './folder.service.js';

export const FOLDER_KEY_PREFIX = 'fk_';

/** fk_<6 hex>_<32 hex>, as the spec shows. */
function generateFolderKey(): string {
  return `${FOLDER_KEY_PREFIX}${randomHex(3)}_${randomHex(16)}`;
}

/** Pro-only keys bound to one folder: uploads with one land in that folder, and they open nothing else. */
export class FolderKeyService {
  constructor(
    private readonly keys: FolderKeyRepository,
    private readonly folders: FolderService,
    private readonly plans: Plans,
    private readonly box: SecretBox,
  ) {}

  async list(account: Principal) {
    this.assertPro(account);
    return (await this.keys.list(account.id)).map((row) => this.toFolderKey(row, row.folderName));
  }

  /** Issues the folder's key; an earlier key of the folder is refused from the very next request. */
  async issue(account: Principal, folderId: string) {
    this.assertPro(account);
    const folder = await this.folders.get(account, folderId);
    const key = generateFolderKey();
    const issued = await this.keys.replace(account.id, folder.id, { hash: sha256(key), sealed: this.box.encrypt(key) });
    if (!issued.ok) throw folderNotFound();
    return this.toFolderKey(issued.value, folder.name);
  }

  async revoke(account: Principal, folderId: string): Promise<void> {
    this.assertPro(account);
    const folder = await this.folders.get(account, folderId);
    if (!(await this.keys.delete(account.id, folder.id))) throw AppError.notFound('This folder has no key');
  }

  /** For upload auth: the account and folder of a folder key; unknown 403, account not Pro 403. */
  async resolve(key: string): Promise<{ account: Principal; usage: AccountUsage; folderId: string }> {
    const found = await this.keys.findByHash(sha256(key));
    if (!found) throw AppError.forbidden('Invalid API key');
    if (!this.plans.of(found.account.plan).folderKeys) throw AppError.forbidden('Folder keys require a Pro plan');
    await this.keys.touch(found.key.id);
    return { account: principalOf(found.account), usage: usageSnapshotOf(found.account), folderId: found.key.folderId };
  }

  /** Keys on the dashboard: only a Pro account has any to show. */
  async listIfPro(account: Principal) {
    return this.plans.of(account.plan).folderKeys ? this.list(account) : [];
  }

  private assertPro(account: Principal) {
    if (!this.plans.of(account.plan).folderKeys) throw AppError.forbidden('Folder keys require a Pro plan');
  }

  private toFolderKey(row: FolderKeyRow, folderName: string) {
    return {
      id: row.id,
      folderId: row.folderId,
      userId: row.accountId,
      apiKey: this.box.decrypt(row.keySealed),
      createdAt: row.createdAt.toISOString(),
      lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
      folderName,
    };
  }
}
