import type { FileRow } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { AccountRepository } from '../repositories/account.repository.js';
import type { FileRepository } from '../repositories/file.repository.js';
import type { PublicFileRepository } from '../repositories/public-file.repository.js';
import type { ByteRange, ObjectBody, StorageDriver } from '../storage/index.js';
import type { FileCache } from './file-cache.js';
import type { ModerationService } from './moderation.service.js';

/** Finds the file a public URL names and opens its bytes; every miss looks the same (404). */
export class HostedFileService {
  // Usernames never change, so their ids can be remembered for the life of the process.
  private readonly accountIds = new Map<string, string>();

  constructor(
    private readonly files: FileRepository,
    private readonly publicFiles: PublicFileRepository,
    private readonly accounts: AccountRepository,
    private readonly storage: StorageDriver,
    private readonly cache: FileCache,
    private readonly moderation: ModerationService,
  ) {}

  async byUsername(username: string, filename: string): Promise<FileRow> {
    const accountId = await this.accountIdOf(username);
    const file = accountId && (await this.cache.through(`${accountId}:${filename}`, () => this.files.findOwned(accountId, filename)));
    return this.servable(file || undefined);
  }

  async byAnonymousName(filename: string): Promise<FileRow> {
    return this.servable(await this.cache.through(`anon:${filename}`, () => this.publicFiles.findAnonymous(filename)));
  }

  async byShortCode(code: string): Promise<FileRow> {
    return this.servable(await this.cache.through(`s:${code}`, () => this.publicFiles.findByShortCode(code)));
  }

  async open(file: FileRow, range?: ByteRange): Promise<ObjectBody> {
    const body = await this.storage.get(file.objectKey, range);
    if (!body) throw AppError.notFound('File not found');
    return body;
  }

  private async accountIdOf(username: string): Promise<string | undefined> {
    const key = username.toLowerCase();
    let id = this.accountIds.get(key);
    if (!id) {
      id = (await this.accounts.findByUsername(key))?.id;
      if (id && this.accountIds.size < 100_000) this.accountIds.set(key, id);
    }
    return id;
  }

  private servable(file: FileRow | undefined): FileRow {
    // An expired file stops being served the moment it expires, before the job deletes it.
    if (!file || (file.expiresAt && file.expiresAt.getTime() <= Date.now())) throw AppError.notFound('File not found');
    this.moderation.assertServable(file);
    return file;
  }
}
