import type { Readable } from 'node:stream';
import type { FileRow } from '../../db/schema.js';
import { AppError } from '../../errors.js';
import type { AccountRepository } from '../../repositories/account.repository.js';
import type { FileRepository } from '../../repositories/file.repository.js';
import type { PublicFileRepository } from '../../repositories/public-file.repository.js';
import type { ByteRange, PresignOptions, StorageDriver } from '../../storage/index.js';
import type { FileBodyCache } from './file-body-cache.js';
import { type FileCache, nameKey, shortCodeKey } from './file-cache.js';
import type { ModerationService } from '../moderation/moderation.service.js';

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

  /** The file a public URL names, if it may be served now; 404 (or 451) otherwise. */
  async find(target: HostedTarget): Promise<FileRow> {
    if (target.kind === 'anonymous') return this.servable(await this.cache.through(nameKey(null, target.filename), () => this.publicFiles.findAnonymous(target.filename)));
    if (target.kind === 'short') return this.servable(await this.cache.through(shortCodeKey(target.code), () => this.publicFiles.findByShortCode(target.code)));
    const accountId = await this.accountIdOf(target.username);
    const load = () => this.files.findOwned(accountId!, target.filename);
    return this.servable((accountId && (await this.cache.through(nameKey(accountId, target.filename), load))) || undefined);
  }

  /**
   * The same answer as `find` when everything it needs is in memory (a hot file), without waiting;
   * undefined when `find` must decide (a lookup to make, or a file that may not be served).
   */
  peek(target: HostedTarget): FileRow | undefined {
    const key = this.keyInMemory(target);
    const file = key === undefined ? undefined : this.cache.get(key);
    return file && this.isServable(file) ? file : undefined;
  }

  /** The target's cache key, if this process can name it without a query (account ids it has seen). */
  private keyInMemory(target: HostedTarget): string | undefined {
    if (target.kind === 'anonymous') return nameKey(null, target.filename);
    if (target.kind === 'short') return shortCodeKey(target.code);
    const accountId = this.accountIds.get(target.username.toLowerCase());
    return accountId && nameKey(accountId, target.filename);
  }

  /** The bytes of small hot files held in memory. */
  get bodies(): FileBodyCache {
    return this.cache.bodies;
  }

  /** The file's bytes (or `range` of them): small files from memory, others streamed from storage. */
  async open(file: FileRow, range?: ByteRange): Promise<{ body: Buffer | Readable; size: number }> {
    const bodies = this.cache.bodies;
    if (bodies.accepts(file.size)) {
      const bytes = await bodies.load(file.objectKey, file.size, async () => (await this.storage.get(file.objectKey))?.body ?? null);
      if (bytes) return { body: range ? bytes.subarray(range.start, range.end + 1) : bytes, size: bytes.length };
    }
    const object = await this.storage.get(file.objectKey, range);
    if (!object) throw AppError.notFound('File not found');
    return object;
  }

  /** Local storage: where the file's object is on disk (for X-Sendfile). */
  localPath(file: FileRow): string {
    if (!this.storage.localPath) throw new Error(`${this.storage.name} storage has no local paths`);
    return this.storage.localPath(file.objectKey);
  }

  /** S3: a short-lived URL that serves the file's object directly. */
  presignedUrl(file: FileRow, options: PresignOptions): Promise<string> {
    if (!this.storage.presignGet) throw new Error(`${this.storage.name} storage cannot presign`);
    return this.storage.presignGet(file.objectKey, options);
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

  /** The file if it may be served now (by its URL or a share link); 404 (or 451) otherwise. */
  servable(file: FileRow | null | undefined): FileRow {
    // An expired file stops being served the moment it expires, before the job deletes it.
    if (!file || isExpired(file)) throw AppError.notFound('File not found');
    this.moderation.assertServable(file);
    return file;
  }

  private isServable(file: FileRow): boolean {
    return !isExpired(file) && this.moderation.isServable(file);
  }
}

/** What a public file URL names: an account's file, an anonymous upload, or a short code. */
export type HostedTarget = { kind: 'owned'; username: string; filename: string } | { kind: 'anonymous'; filename: string } | { kind: 'short'; code: string };

function isExpired(file: FileRow): boolean {
  return file.expiresAt !== null && file.expiresAt.getTime() <= Date.now();
}
