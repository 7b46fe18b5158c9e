import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { type SecretBox, sha256 } from '../../crypto.js';
import { AppError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { type Principal, principalOf } from '../../principal.js';
import type { AccountRepository } from '../../repositories/account.repository.js';
import type { DropLinkRepository, DropLinkRow, DropLinkWithFile } from '../../repositories/drop-link.repository.js';
import type { FileRecords } from '../files/file-records.js';
import { isId, type FolderService } from './folder.service.js';
import type { NotificationEvent, NotificationService } from '../notifications/notification.service.js';
import type { UploadAuthService } from '../uploads/upload-auth.service.js';
import type { UploadResult } from '../../contracts/upload.contract.js';
import type { ReceivedBody, Uploader, UploadService } from '../uploads/upload.service.js';
import type { DomainEvents } from '../webhooks/domain-events.js';

export const DROP_NOTIFICATION_TYPE = 'drop';
export const MAX_DROP_WAIT_SECONDS = 30;
const MAX_EXPIRES_IN = 7 * 24 * 60 * 60;
// 24 random bytes: 192 bits, 32 URL-safe characters.
const TOKEN_BYTES = 24;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{32}$/;

export const createDropLinkSchema = z.object({
  folderId: z.string().max(64).nullish().describe('the folder the file goes into; null or absent: the library root'),
  expiresIn: z
    .number()
    .int()
    .min(60, 'expiresIn must be at least 60 seconds')
    .max(MAX_EXPIRES_IN, 'expiresIn is at most 7 days (604800 seconds)')
    .default(3600)
    .describe('seconds the link stays open (default 3600)'),
  maxSizeBytes: z.number().int().positive('maxSizeBytes must be a positive integer').nullish().describe('the largest file it takes (at most the plan’s)'),
  note: z.string().trim().max(500, 'note is at most 500 characters').nullish().describe('shown on the drop page'),
});
export type CreateDropLinkInput = z.output<typeof createDropLinkSchema>;

/** Where a drop waiter hears of arrivals: the web process's notification hub fits this. */
export interface DropArrivals {
  listen(accountId: string, listener: (event: NotificationEvent) => void, end: () => void): () => void;
}

export interface WaitOptions {
  waitSeconds: number;
  arrivals: DropArrivals;
  /** the request went away: stop waiting */
  signal?: AbortSignal;
}

/** What the public drop page shows, and what a drop needs to go through the upload pipeline. */
export interface OpenDrop {
  linkId: string;
  username: string;
  note: string | null;
  /** the smaller of the link's limit and the requester's plan limit */
  maxBytes: number;
  expiresAt: Date;
  uploader: Uploader;
}

export type DropLinkStatus = 'pending' | 'received' | 'expired';

/**
 * File drop links: an account asks for one file and someone without an account drops it through
 * a page. The token is a capability, stored hashed (lookup) and sealed (to show the link again).
 */
export class DropLinkService {
  constructor(
    private readonly deps: {
      links: DropLinkRepository;
      accounts: AccountRepository;
      folders: FolderService;
      uploads: UploadService;
      uploadAuth: UploadAuthService;
      notifications: NotificationService;
      records: FileRecords;
      events: DomainEvents;
      box: SecretBox;
      siteUrl: string;
      logger: Logger;
    },
  ) {}

  async create(account: Principal, input: CreateDropLinkInput) {
    const folderId = input.folderId ? (await this.deps.folders.get(account, input.folderId)).id : null;
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    const link = await this.deps.links.create({
      accountId: account.id,
      folderId,
      tokenHash: sha256(token),
      tokenSealed: this.deps.box.encrypt(token),
      note: input.note || null,
      maxSizeBytes: input.maxSizeBytes ?? null,
      expiresAt: new Date(Date.now() + input.expiresIn * 1000),
    });
    return this.view(account, { link, file: null });
  }

  async list(account: Principal) {
    return (await this.deps.links.listOwned(account.id)).map((row) => this.view(account, row));
  }

  /** One link; with `wait`, held until its file arrives (from any web process) or the wait passes. */
  async get(account: Principal, id: string, wait?: WaitOptions) {
    const current = await this.find(account, id);
    if (!wait || wait.waitSeconds <= 0 || current.status !== 'pending') return current;
    return this.waitForArrival(account, id, current, wait);
  }

  /** A cancelled link is gone for the account (404, not listed); its page answers 410. */
  async cancel(account: Principal, id: string): Promise<void> {
    if (!isId(id) || !(await this.deps.links.cancelOwned(account.id, id))) throw AppError.notFound('Drop link not found');
  }

  /** The link behind a drop page's token, if it can still take a file: 404 unknown, 410 spent/expired/cancelled. */
  async open(token: string): Promise<OpenDrop> {
    const link = TOKEN_SHAPE.test(token) ? await this.deps.links.findByTokenHash(sha256(token)) : undefined;
    if (!link) throw AppError.notFound('Drop link not found');
    assertUsable(link);
    const row = await this.deps.accounts.findById(link.accountId);
    if (!row) throw AppError.notFound('Drop link not found');
    const requester = principalOf(row);
    const uploader = this.deps.uploadAuth.uploaderFor(requester, link.folderId);
    const planMax = this.deps.uploads.maxBytesFor(requester);
    return {
      linkId: link.id,
      username: requester.username,
      note: link.note,
      maxBytes: link.maxSizeBytes ? Math.min(link.maxSizeBytes, planMax) : planMax,
      expiresAt: link.expiresAt,
      uploader,
    };
  }

  /**
   * Records a received body as the requester's file. The link is claimed first by one conditional
   * update, so of concurrent drops exactly one goes on (the others' objects are discarded: 410); a
   * commit that fails gives the claim back.
   */
  async complete(drop: OpenDrop, received: ReceivedBody, originalName: string | undefined): Promise<UploadResult> {
    if (!(await this.deps.links.claim(drop.linkId, CLAIM_LAPSE_MS))) {
      await this.deps.uploads.discard(received.objectKey);
      throw gone('This drop link has already been used or has expired');
    }
    let result: UploadResult;
    try {
      result = await this.deps.uploads.commit(drop.uploader, received, { originalName, expiry: null, source: 'drop' });
    } catch (err) {
      await this.deps.links.releaseClaim(drop.linkId);
      throw err;
    }
    const requester = drop.uploader.account!;
    const accountId = requester.id;
    await this.deps.links.attachFile(drop.linkId, accountId, result.filename);
    await this.deps.events.emit(accountId, 'drop.received', async () => [await this.find(requester, drop.linkId)]);
    await this.deps.notifications
      .notify(accountId, {
        type: DROP_NOTIFICATION_TYPE,
        title: 'A file was dropped',
        message: `${result.originalFilename} arrived through your drop link`,
        data: { dropLinkId: drop.linkId, filename: result.filename, originalName: result.originalFilename, link: result.url, linkText: 'Open file' },
      })
      // The file and the link are recorded; a waiter that misses the event re-reads when its wait ends.
      .catch((err: unknown) => this.deps.logger.warn({ err, dropLinkId: drop.linkId }, 'could not notify a drop'));
    return result;
  }

  /** A drop whose body arrives whole (a finished tus upload): stored within the link's size, then completed. */
  async receive(drop: OpenDrop, body: Readable, originalName: string | undefined): Promise<UploadResult> {
    const received = await this.deps.uploads.receive(body, { ...this.deps.uploads.receiveOptionsFor(drop.uploader.account), maxBytes: drop.maxBytes });
    return this.complete(drop, received, originalName);
  }

  private async find(account: Principal, id: string) {
    const row = isId(id) ? await this.deps.links.findOwned(account.id, id) : undefined;
    if (!row) throw AppError.notFound('Drop link not found');
    return this.view(account, row);
  }

  /** Listens first, then reads again, so an arrival between the first read and listening is not missed. */
  private async waitForArrival(account: Principal, id: string, current: ReturnType<DropLinkService['view']>, wait: WaitOptions) {
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const stop = wait.arrivals.listen(account.id, (event) => isDropOf(event, id) && wake(), () => wake());
    // The wait ends at the latest when the link expires.
    const ms = Math.min(wait.waitSeconds * 1000, Math.max(0, Date.parse(current.expiresAt) - Date.now()));
    const timer = setTimeout(wake, ms);
    wait.signal?.addEventListener('abort', wake);
    try {
      const again = await this.find(account, id);
      if (again.status !== 'pending') return again;
      await woken;
      return await this.find(account, id);
    } finally {
      stop();
      clearTimeout(timer);
      wait.signal?.removeEventListener('abort', wake);
    }
  }

  private view(account: Principal, { link, file }: DropLinkWithFile) {
    return {
      id: link.id,
      url: `${this.deps.siteUrl}/drop/${this.deps.box.decrypt(link.tokenSealed)}`,
      status: statusOf(link),
      note: link.note,
      folderId: link.folderId,
      maxSizeBytes: link.maxSizeBytes,
      expiresAt: link.expiresAt.toISOString(),
      createdAt: link.createdAt.toISOString(),
      receivedAt: link.receivedAt?.toISOString() ?? null,
      file: file ? this.deps.records.of(file, account) : null,
    };
  }
}

// A drop claims its link after storing the body and commits right after, so a claim lives
// milliseconds; one this old was left by a process that died in between, and the link is free again.
const CLAIM_LAPSE_MS = 5 * 60_000;

function gone(message: string) {
  return new AppError(410, 'gone', message);
}

/** A claim in flight (received, no file attached yet) still reads as pending. */
function statusOf(link: DropLinkRow, now = Date.now()): DropLinkStatus {
  if (link.status === 'received' && link.receivedAt) return 'received';
  return link.expiresAt.getTime() <= now ? 'expired' : 'pending';
}

function assertUsable(link: DropLinkRow) {
  if (link.status === 'cancelled') throw gone('This drop link was cancelled');
  const lapsedClaim = !link.receivedAt && link.claimedAt !== null && link.claimedAt.getTime() < Date.now() - CLAIM_LAPSE_MS;
  if (link.status === 'received' && !lapsedClaim) throw gone('This drop link has already been used');
  if (link.expiresAt.getTime() <= Date.now()) throw gone('This drop link has expired');
}

function isDropOf(event: NotificationEvent, id: string): boolean {
  return event.kind === 'notification' && event.notification.type === DROP_NOTIFICATION_TYPE && event.notification.data.dropLinkId === id;
}
