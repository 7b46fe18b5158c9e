import type { Readable } from 'node:stream';
import type { Expiry } from '../../contracts/expiry.contract.js';
import type { UploadResult } from '../../contracts/upload.contract.js';
import { randomHex, sha256 } from '../../crypto.js';
import { outageOf, statementTimedOut } from '../../dependency-health.js';
import type { FileRow } from '../../db/schema.js';
import { AppError, isAppError } from '../../errors.js';
import { jobIds, type JobQueues } from '../../jobs.js';
import type { Logger } from '../../logger.js';
import type { Plans } from '../../plans.js';
import type { RateLimits } from '../../rate-limits.js';
import type { AccountUsage, Principal } from '../../principal.js';
import type { ChargeRefusal, UploadChargeRepository } from '../../repositories/upload-charge.repository.js';
import { newObjectKey, type StorageDriver } from '../../storage/index.js';
import { secondsUntilNextUtcDay } from '../../time.js';
import { todayCountOf } from '../accounts/account.service.js';
import { expiresAtFor, expiryTimerDelay } from './expiry.js';
import { chooseExtension, cleanOriginalName, generateFilename, generateShortCode } from './file-naming.js';
import type { FileUrls } from '../files/file-urls.js';
import { type Sniffed, sniffBody, type SniffOptions } from '../media/media-sniffer.js';
import { MetadataRemover } from '../media/metadata/metadata-remover.js';
import type { ModerationService } from '../moderation/moderation.service.js';
import type { ThumbnailService } from '../media/thumbnails/thumbnail.service.js';
import type { DomainEvents } from '../webhooks/domain-events.js';

/** Who is uploading and where the file goes. */
export interface Uploader {
  /** null for an anonymous upload from the website */
  account: Principal | null;
  /** a folder key's folder; null: the account's default upload folder, else the root library */
  folderId: string | null;
  /** what the account had used when its key was looked up (read again only when missing) */
  usage?: AccountUsage | undefined;
}

export interface ReceivedBody {
  objectKey: string;
  size: number;
  /** SHA-256 (hex) of the stored bytes (after any metadata removal) */
  sha256: string;
  sniffed: Sniffed;
}

/** How a body is received: its size bound, and whether its metadata is removed on the way in. */
export interface ReceiveOptions extends SniffOptions {
  maxBytes: number;
  stripMetadata: boolean;
  signal?: AbortSignal | undefined;
}

// The upload answer's link to a private file: usable at once, and not forever (docs/decisions.md).
const UPLOAD_LINK_TTL_SECONDS = 7 * 24 * 3600;

export interface CommitOptions {
  originalName: string | undefined;
  expiry: Expiry;
  source: string;
}


/** How an upload comes in, and from which address (whoever uploads without an account is limited by it). */
export interface Admission {
  via?: 'upload' | 'drop' | 'replace';
  ip?: string | undefined;
}

export interface UploadServiceDeps {
  storage: StorageDriver;
  rates: Pick<RateLimits, 'uploadsByKey' | 'uploadsByIp' | 'dropsByIp'>;
  charges: UploadChargeRepository;
  plans: Plans;
  urls: FileUrls;
  jobs: JobQueues;
  moderation: ModerationService;
  thumbnails: ThumbnailService;
  events: DomainEvents;
  logger: Logger;
  baseUrl: string;
  /** stored-name generator; replaceable so tests can force a collision */
  generateFilename?: (extension: string) => string;
}

/** How an upload the charge refused (or certainly would) is answered. */
function chargeRefused(reason: ChargeRefusal): AppError {
  switch (reason) {
    case 'daily_limit_reached':
      return AppError.tooManyRequests('Daily upload limit reached', secondsUntilNextUtcDay());
    case 'storage_full':
      return AppError.forbidden('Storage limit reached: delete files or upgrade the plan');
    case 'taken':
      return AppError.conflict('The generated name was taken by a concurrent upload; retry');
    case 'folder_gone':
      return AppError.conflict('The destination folder was deleted during the upload; retry');
  }
}

export class UploadService {
  private readonly nameFor: (extension: string) => string;
  private readonly metadata: MetadataRemover;

  constructor(private readonly deps: UploadServiceDeps) {
    this.nameFor = deps.generateFilename ?? generateFilename;
    this.metadata = new MetadataRemover(deps.logger);
  }

  maxBytesFor(account: Principal | null): number {
    return account ? this.deps.plans.of(account.plan).maxFileSize : this.deps.plans.anonymousMaxFileSize;
  }

  /** How every way in receives for this account: its plan's size bound, and its metadata setting (anonymous: strip). */
  receiveOptionsFor(account: Principal | null): Pick<ReceiveOptions, 'maxBytes' | 'stripMetadata'> {
    return { maxBytes: this.maxBytesFor(account), stripMetadata: account?.stripMetadata ?? true };
  }

  /**
   * The one gate every way in passes before any byte is read: multipart, URL, tus and the MCP tools
   * (`upload`), a drop link (`drop`: its stranger's address is limited, the requester's account
   * checked) and replace (`replace`: charged only its growth, atomically, and never counted as a new
   * file). It takes one upload from the caller's rate limit and refuses what would certainly be
   * refused at commit.
   */
  async admit(uploader: Uploader, { via = 'upload', ip }: Admission = {}): Promise<void> {
    const { rates } = this.deps;
    if (via === 'drop') await rates.dropsByIp.consume(required(ip));
    else if (uploader.account) await rates.uploadsByKey.consume(uploader.account.id);
    else await rates.uploadsByIp.consume(required(ip));
    if (via !== 'replace') await this.assertCanUpload(uploader);
  }

  /** The account's usage is read here: the one query an upload adds to its authentication and its charge. */
  private async assertCanUpload({ account, usage: known }: Uploader): Promise<void> {
    if (!account) return;
    if (account.status === 'banned') throw AppError.forbidden('This account is banned');
    const plan = this.deps.plans.of(account.plan);
    // The charge checks the limits again, atomically: this only spares reading a body bound to be refused.
    const usage = known ?? (await this.deps.charges.usageOf(account.id));
    if (!usage) throw AppError.forbidden('Invalid API key');
    if (usage.storageUsed >= plan.monthlyStorageLimit) throw chargeRefused('storage_full');
    if (todayCountOf(usage) >= plan.dailyLimit) throw chargeRefused('daily_limit_reached');
  }

  /**
   * Streams a body into storage under a fresh key, checking its type from the first bytes, removing
   * its metadata when asked (right after the sniff, so every way in stores the same bytes) and
   * checking its size as it flows. The size is the stored one. On any failure nothing is left in storage.
   */
  async receive(body: Readable, options: ReceiveOptions): Promise<ReceivedBody> {
    const objectKey = newObjectKey();
    try {
      const { sniffed, body: checked } = await sniffBody(body, options);
      const signal = options.signal ? { signal: options.signal } : {};
      const store = (stored: Readable) => this.deps.storage.put(objectKey, stored, { maxBytes: options.maxBytes, ...signal });
      const { size, sha256: digest } = options.stripMetadata
        ? await this.metadata.remove(sniffed.mime, checked, { maxBytes: options.maxBytes, ...signal }, store)
        : await store(checked);
      return { objectKey, size, sha256: digest, sniffed };
    } catch (err) {
      // Whatever is left of the body is read and dropped, so the request can still be answered.
      body.resume();
      if (isAppError(err)) throw err;
      // The caller knows what its body's own failures mean (api/upload: a cut-short multipart part).
      throw AppError.storageUnavailable(undefined, err);
    }
  }

  /**
   * Records a received body as the uploader's file and charges it, in one transaction. If anything
   * fails, the stored object is removed and nothing is charged.
   */
  async commit(uploader: Uploader, received: ReceivedBody, options: CommitOptions): Promise<UploadResult> {
    const { account } = uploader;
    const originalName = cleanOriginalName(options.originalName);
    const deletionToken = randomHex(16);
    let file: FileRow;
    try {
      const { expiry } = options;
      const plan = account ? this.deps.plans.of(account.plan) : undefined;
      const charged = await this.deps.charges.insertCharged(
        {
          accountId: account?.id ?? null,
          folderId: account ? uploader.folderId : null,
          filename: this.nameFor(chooseExtension(originalName, received.sniffed.ext)),
          originalName,
          objectKey: received.objectKey,
          shortCode: generateShortCode(),
          size: received.size,
          sha256: received.sha256,
          mimeType: received.sniffed.mime,
          source: options.source,
          expiresAt: expiresAtFor(expiry),
          expiry,
          deletionTokenHash: sha256(deletionToken),
        },
        plan && { dailyLimit: plan.dailyLimit, storageLimit: plan.monthlyStorageLimit },
      );
      if (!charged.ok) throw chargeRefused(charged.reason);
      file = charged.value;
    } catch (err) {
      await this.discard(received.objectKey);
      // A database too slow or out of reach is answered 503 (the error middleware), not as storage's fault.
      if (isAppError(err) || statementTimedOut(err) || outageOf(err)) throw err;
      this.deps.logger.error({ err }, 'recording an upload failed');
      throw AppError.storageUnavailable('Saving the upload failed, nothing was saved; retry');
    }
    if (file.expiresAt) await this.scheduleExpiry(file);
    // Independent jobs (and the webhook event, every way in ends here): side by side, so the answer waits for one round trip.
    await Promise.all([this.deps.moderation.enqueue(file), this.deps.thumbnails.enqueue(file), this.deps.events.files('file.uploaded', account, [file])]);
    return this.resultOf(file, account, deletionToken);
  }

  /** receive + commit, for bodies that arrive with their metadata (URL fetches, MCP). */
  async upload(uploader: Uploader, body: Readable, options: CommitOptions & SniffOptions & { signal?: AbortSignal }) {
    const received = await this.receive(body, { ...options, ...this.receiveOptionsFor(uploader.account) });
    return this.commit(uploader, received, options);
  }

  /** Removes an object that never became a file (multer calls this when a request fails late). */
  async discard(objectKey: string): Promise<void> {
    try {
      await this.deps.storage.delete(objectKey);
    } catch {
      // Storage is failing right now; the delete job retries until it succeeds.
      await this.deps.jobs.add('object.delete', { key: objectKey }).catch((err: unknown) => {
        this.deps.logger.error({ err, objectKey }, 'could not remove or queue removal of an orphan object');
      });
    }
  }

  private async scheduleExpiry(file: FileRow) {
    const delay = expiryTimerDelay(file.expiresAt!);
    // The per-minute sweep catches this file anyway if the job is lost; never fail the upload for it.
    await this.deps.jobs.add('file.expire', { fileId: file.id }, { delay, jobId: jobIds.fileExpire(file.id) }).catch((err: unknown) => {
      this.deps.logger.warn({ err, fileId: file.id }, 'could not schedule expiry; the sweep will catch it');
    });
  }

  private resultOf(file: FileRow, account: Principal | null, deletionToken: string): UploadResult {
    return {
      url: this.deps.urls.forFile(file, account, UPLOAD_LINK_TTL_SECONDS),
      filename: file.filename,
      originalFilename: file.originalName,
      mimeType: file.mimeType,
      sizeBytes: file.size,
      sha256: file.sha256!,
      expiry: file.expiry,
      deletionUrl: `${this.deps.baseUrl}/api/delete/${encodeURIComponent(file.filename)}?token=${deletionToken}`,
    };
  }
}

function required(ip: string | undefined): string {
  if (!ip) throw new Error('an upload without an account is admitted by its address');
  return ip;
}
