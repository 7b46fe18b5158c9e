import path from 'node:path';
import mime from 'mime-types';
import { sha256 } from '../../crypto.js';
import type { RenditionRequest } from '../media/renditions/rendition-params.js';
import type { FileRow } from '../../db/schema.js';
import { AppError } from '../../errors.js';
import { jobIds, type JobQueues } from '../../jobs.js';
import type { Logger } from '../../logger.js';
import type { Plans } from '../../plans.js';
import type { Principal } from '../../principal.js';
import type { AccountRepository } from '../../repositories/account.repository.js';
import type { FileMaintenanceRepository } from '../../repositories/file-maintenance.repository.js';
import type { FileRepository } from '../../repositories/file.repository.js';
import type { CachePurgeService } from './cache-purge.service.js';
import { cleanOriginalName } from '../uploads/file-naming.js';
import type { FileUrls } from './file-urls.js';
import { folderNotFound, type FolderService } from '../folders/folder.service.js';
import type { ModerationService } from '../moderation/moderation.service.js';
import type { ThumbnailService } from '../media/thumbnails/thumbnail.service.js';
import type { ReceivedBody, UploadService } from '../uploads/upload.service.js';
import type { DomainEvents, EventOwner } from '../webhooks/domain-events.js';

// Expired files deleted per transaction, and their objects per delete job.
const SWEEP_BATCH = 1000;
// In-flight reads of a replaced file's old object get this long to finish before it is deleted.
const REPLACED_OBJECT_GRACE_MS = 60_000;
const NOT_OWNED = 'file not found or not owned by user';

/** The life of stored files after upload: rename, replace, move, delete and expiry. */
export class FileService {
  constructor(
    private readonly deps: {
      files: FileRepository;
      /** expiry and deletion links: files by id or token, whoever owns them */
      maintenance: FileMaintenanceRepository;
      folders: FolderService;
      accounts: AccountRepository;
      uploads: UploadService;
      purges: CachePurgeService;
      moderation: ModerationService;
      thumbnails: ThumbnailService;
      urls: FileUrls;
      plans: Plans;
      jobs: JobQueues;
      events: DomainEvents;
      logger: Logger;
    },
  ) {}

  async deleteOwned(account: Principal, filename: string): Promise<FileRow> {
    const file = await this.deps.files.deleteOwned(account.id, filename);
    if (!file) throw AppError.notFound('File not found');
    await this.afterRemoval([file], 'file.deleted', account);
    return file;
  }

  /** A deletion link (`?token=`) is a capability for exactly one file. */
  async deleteWithToken(filename: string, token: string): Promise<FileRow> {
    const found = await this.deps.maintenance.findByDeletionToken(filename, sha256(token));
    const file = found && (await this.deps.maintenance.deleteById(found.id));
    if (!file) throw AppError.notFound('File not found');
    await this.afterRemoval([file], 'file.deleted');
    return file;
  }

  /** `newFilename` is a checked name (see the rename route); a name the account uses is 409. */
  async rename(account: Principal, filename: string, newFilename: string) {
    const file = await this.owned(account, filename);
    const changedExt = path.extname(newFilename).toLowerCase() !== path.extname(filename).toLowerCase();
    const mimeType = changedExt ? mime.lookup(newFilename) || 'application/octet-stream' : file.mimeType;
    const outcome = await this.deps.files.rename(account.id, filename, newFilename, mimeType);
    if (!outcome.ok) throw AppError.conflict(`You already have a file named ${newFilename}`);
    const renamed = outcome.value;
    if (!renamed) throw AppError.notFound('File not found');
    await this.deps.purges.fileChanged(renamed, account, { filename });
    await this.deps.events.files('file.updated', account, [renamed]);
    return { oldFilename: filename, newFilename, newUrl: this.deps.urls.forFile(renamed, account) };
  }

  /**
   * Points the file at a newly stored body: same name, URL, folder and privacy. If the new size
   * would pass the storage limit nothing changes (413) and the new object is removed. A quarantined
   * file stays blocked until its new content is judged — unless that content is of a kind the
   * moderation service does not judge, which would leave it blocked for good.
   */
  async replace(account: Principal, filename: string, received: ReceivedBody, originalName: string) {
    let replaced;
    try {
      const outcome = await this.deps.files.replace(
        account.id,
        filename,
        { objectKey: received.objectKey, size: received.size, sha256: received.sha256, mimeType: received.sniffed.mime, originalName: cleanOriginalName(originalName) },
        this.deps.plans.of(account.plan).monthlyStorageLimit,
        this.deps.moderation.isModerated(received.sniffed.mime),
      );
      if (!outcome.ok) throw AppError.tooLarge('The larger file would pass the storage limit');
      if (!outcome.value) throw AppError.notFound('File not found');
      replaced = outcome.value;
    } catch (err) {
      await this.deps.uploads.discard(received.objectKey);
      throw err;
    }
    const { before, after } = replaced;
    await this.deps.jobs
      .add('object.delete', { key: before.objectKey }, { delay: REPLACED_OBJECT_GRACE_MS })
      .catch((err: unknown) => this.deps.logger.error({ err, key: before.objectKey }, 'could not queue deletion of a replaced object'));
    await this.deps.purges.fileChanged(after, account, { objectKey: before.objectKey });
    await this.deps.moderation.enqueue(after);
    await this.deps.thumbnails.enqueue(after);
    await this.deps.events.files('file.updated', account, [after]);
    return {
      filename: after.filename,
      url: this.deps.urls.forFile(after, account),
      mimeType: after.mimeType,
      sizeBytes: after.size,
      sha256: received.sha256,
      oldSizeBytes: before.size,
      updatedAt: after.updatedAt!.toISOString(),
    };
  }

  /** The file's link, or one of its renditions' (`w`, `format`, `q`); a private file's signed with them. */
  async link(account: Principal, filename: string, rendition: RenditionRequest | undefined): Promise<{ url: string }> {
    const file = await this.owned(account, filename);
    if (rendition && !file.mimeType.startsWith('image/')) throw new AppError(422, 'unprocessable_image', 'Renditions are made of images only');
    return { url: this.deps.urls.forFile(file, account, undefined, rendition) };
  }

  /** A private file is served only through the signed links its owner's answers carry. */
  async setPrivacy(account: Principal, filename: string, isPrivate: boolean) {
    const file = await this.deps.files.setPrivate(account.id, filename, isPrivate);
    if (!file) throw AppError.notFound('File not found');
    await this.deps.purges.fileChanged(file, account);
    await this.deps.events.files('file.updated', account, [file]);
    // Thumbnail URLs change with privacy: the answer carries the new ones.
    return { filename: file.filename, isPrivate: file.isPrivate, url: this.deps.urls.forFile(file, account), ...this.deps.thumbnails.urlsOf(file) };
  }

  async move(account: Principal, filename: string, folderId: string | null): Promise<void> {
    const moved = await this.moveOwned(account, [filename], folderId);
    if (moved.length === 0) throw AppError.notFound('File not found');
  }

  /** Moves what it can; files that are missing or not the account's are reported, not fatal. */
  async moveMany(account: Principal, filenames: string[], folderId: string | null) {
    const unique = [...new Set(filenames)];
    const moved = new Set(await this.moveOwned(account, unique, folderId));
    return {
      moved: unique.filter((f) => moved.has(f)),
      errors: unique.filter((f) => !moved.has(f)).map((f) => ({ filename: f, error: NOT_OWNED })),
    };
  }

  /**
   * Deletes every file due by `now`, a batch at a time. Each file's own job runs this at its expiry
   * time, and a sweep every minute behind them (e.g. after Redis lost some). Files come due together
   * by the thousand (a minute's expiring uploads) and their jobs may run late behind one another:
   * whichever job runs first deletes what is due, so none waits for its own job, and most jobs find
   * nothing left to do.
   */
  async sweepExpired(now = new Date()): Promise<number> {
    // Most runs find nothing: a look costs less than a deleting transaction.
    if (!(await this.deps.maintenance.anyExpired(now))) return 0;
    let removed = 0;
    for (;;) {
      const batch = await this.deps.maintenance.deleteExpired(now, SWEEP_BATCH);
      if (batch.length > 0) await this.afterRemoval(batch, 'file.expired');
      removed += batch.length;
      // A short batch: the rest is done, or being done by a sweep running beside this one.
      if (batch.length < SWEEP_BATCH) return removed;
    }
  }

  /** Before a replacement body is read: the file exists, and the account may still store content. */
  async assertReplaceable(account: Principal, filename: string): Promise<void> {
    await this.owned(account, filename);
    // New bytes are an upload in all but name: a banned account may read and tidy, never store.
    if (account.status === 'banned') throw AppError.forbidden('This account is banned');
  }

  private async owned(account: Principal, filename: string): Promise<FileRow> {
    const file = await this.deps.files.findOwned(account.id, filename);
    if (!file) throw AppError.notFound('File not found');
    return file;
  }

  /** Moves the account's named files into its folder (null: the root); returns the names moved. */
  private async moveOwned(account: Principal, filenames: string[], folderId: string | null): Promise<string[]> {
    if (folderId !== null) await this.deps.folders.get(account, folderId);
    const moved = await this.deps.files.move(account.id, filenames, folderId);
    if (!moved.ok) throw folderNotFound();
    await this.deps.events.files('file.updated', account, moved.value);
    return moved.value.map((file) => file.filename);
  }

  /** The rows are gone, so nothing serves the files any more; their bytes go through one delete job. */
  private async afterRemoval(removed: FileRow[], event: 'file.deleted' | 'file.expired', owner?: EventOwner) {
    const keys = removed.map((file) => file.objectKey);
    await this.deps.jobs.add('objects.delete', { keys }).catch((err: unknown) => {
      this.deps.logger.error({ err, keys: keys.slice(0, 10), count: keys.length }, "could not queue deletion of removed files' objects");
    });
    // Their expiry timers have nothing left to do: dropped, rather than run by the thousand for nothing.
    const timers = removed.flatMap((file) => (file.expiresAt ? [jobIds.fileExpire(file.id)] : []));
    if (timers.length > 0) await this.deps.jobs.drop('file.expire', timers).catch((err: unknown) => this.deps.logger.warn({ err }, 'could not drop expiry timers'));
    const owners = owner ? new Map([[owner.id, owner]]) : await this.ownersOf(removed);
    const ownerOf = (file: FileRow) => (file.accountId ? owners.get(file.accountId) : undefined);
    await this.deps.purges.filesChanged(removed.map((file) => ({ file, owner: ownerOf(file) ?? null, removed: true })));
    const byOwner = new Map<EventOwner, FileRow[]>();
    for (const file of removed) {
      const fileOwner = ownerOf(file);
      if (!fileOwner) continue;
      const files = byOwner.get(fileOwner) ?? [];
      byOwner.set(fileOwner, files);
      files.push(file);
    }
    await this.deps.events.filesOfOwners(event, [...byOwner].map(([eventOwner, files]) => ({ owner: eventOwner, files })));
  }

  private async ownersOf(removed: FileRow[]): Promise<Map<string, EventOwner>> {
    const ids = new Set(removed.flatMap((file) => (file.accountId ? [file.accountId] : [])));
    return new Map((await this.deps.accounts.findByIds([...ids])).map((account) => [account.id, account]));
  }
}
