import type { AccountRow } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { AccountService } from './account.service.js';
import { FOLDER_KEY_PREFIX, type FolderKeyService } from './folder-key.service.js';
import type { Uploader } from './upload.service.js';

/** Turns the key of an upload request into who uploads and where the file goes. */
export class UploadAuthService {
  constructor(
    private readonly accounts: AccountService,
    private readonly folderKeys: FolderKeyService,
  ) {}

  /**
   * A folder key files into its folder (Pro only); a primary key into the default upload folder,
   * else the root library.
   */
  async resolveKey(key: string): Promise<Uploader> {
    if (key.startsWith(FOLDER_KEY_PREFIX)) {
      const { account, folderId } = await this.folderKeys.resolve(key);
      return this.uploaderFor(account, folderId);
    }
    const account = await this.accounts.findByApiKey(key);
    if (!account) throw AppError.forbidden('Invalid API key');
    return this.uploaderFor(account, account.defaultUploadFolderId);
  }

  uploaderFor(account: AccountRow, folderId: string | null): Uploader {
    if (account.status === 'banned') throw AppError.forbidden('This account is banned');
    return { account, folderId };
  }
}
