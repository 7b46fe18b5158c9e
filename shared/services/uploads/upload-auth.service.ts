import { AppError } from '../../errors.js';
import type { AccountUsage, Principal } from '../../principal.js';
import { assertScope, type CredentialService } from '../accounts/credential.service.js';
import { FOLDER_KEY_PREFIX, type FolderKeyService } from '../folders/folder-key.service.js';
import type { FolderService } from '../folders/folder.service.js';
import type { Uploader } from './upload.service.js';

/** Turns the key of an upload request into who uploads and where the file goes. */
export class UploadAuthService {
  constructor(
    private readonly credentials: CredentialService,
    private readonly folderKeys: FolderKeyService,
    private readonly folders: FolderService,
  ) {}

  /**
   * A folder key files into its folder (Pro only); a primary key, or a personal access token with
   * files:write, into the account's default upload folder, else the root library (`folderId` null:
   * read when the upload is recorded). An unknown, revoked or expired key is 403.
   */
  async resolveKey(key: string): Promise<Uploader> {
    if (key.startsWith(FOLDER_KEY_PREFIX)) {
      const { account, usage, folderId } = await this.folderKeys.resolve(key);
      return this.uploaderFor(account, folderId, usage);
    }
    const found = await this.credentials.byKey(key);
    if (!found) throw AppError.forbidden('Invalid API key');
    assertScope(found, 'files:write');
    return this.uploaderFor(found.principal, null, found.usage);
  }

  /**
   * `folderId`: a folder key's folder, or null for the account's default upload folder; `usage`:
   * what the account had used when it was looked up, if that lookup read it.
   */
  uploaderFor(account: Principal, folderId: string | null, usage?: AccountUsage): Uploader {
    if (account.status === 'banned') throw AppError.forbidden('This account is banned');
    return { account, folderId, usage };
  }

  /** A signed-in caller uploading into one of its own folders (checked), or its default one. */
  async uploaderInFolder(account: Principal, folderId: string | null | undefined): Promise<Uploader> {
    const target = folderId ? (await this.folders.get(account, folderId)).id : null;
    return this.uploaderFor(account, target);
  }
}
