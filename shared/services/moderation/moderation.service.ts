import { z } from 'zod';
import type { FileRow } from '../../db/schema.js';
import { AppError } from '../../errors.js';
import { JOBS, jobIds, type JobQueues } from '../../jobs.js';
import type { Logger } from '../../logger.js';
import { postMultipart } from '../../net/multipart-post.js';
import { type Principal, principalOf } from '../../principal.js';
import type { AccountRepository } from '../../repositories/account.repository.js';
import type { FileMaintenanceRepository } from '../../repositories/file-maintenance.repository.js';
import type { StorageDriver } from '../../storage/index.js';
import type { CachePurgeService } from '../files/cache-purge.service.js';
import type { NotificationService } from '../notifications/notification.service.js';
import type { DomainEvents } from '../webhooks/domain-events.js';

// What the moderation service accepts (architecture.md / /info): stills, GIFs and videos, under
// every name the stored type may have (it comes from file-type: e.g. video/matroska, image/apng).
const MODERATED_TYPES = /^(image\/(jpeg|png|apng|webp|bmp|gif)|video\/(mp4|x-msvideo|vnd\.avi|quicktime|x-matroska|matroska|webm|x-flv|x-ms-asf|x-ms-wmv|x-m4v))$/;
// Answers that mean the service looked at the content and cannot judge it; any other refusal
// (404 from a wrong VISION_URL, 429, …) is a problem of the moment, retried like an outage.
const CANNOT_JUDGE = new Set([400, 413, 415, 422]);
// How long the moderation service's size limit (from its /info) is trusted before it is asked again.
const LIMIT_TTL_MS = 5 * 60_000;
// A check normally runs within seconds; a file unjudged this long after it was stored lost its job.
const LOST_AFTER_MS = 15 * 60_000;
const SWEEP_BATCH = 500;
const VISION_TIMEOUT_MS = 10 * 60 * 1000;

type Verdict = NonNullable<FileRow['moderationVerdict']>;
const VERDICTS: Verdict[] = ['allow', 'soft_flag', 'hard_block'];

export interface ModerationDeps {
  /** any account's files by id: moderation acts for no owner */
  files: FileMaintenanceRepository;
  accounts: AccountRepository;
  storage: StorageDriver;
  jobs: JobQueues;
  notifications: NotificationService;
  purges: CachePurgeService;
  events: DomainEvents;
  logger: Logger;
  config: { visionUrl: string; enabled: boolean; holdPending: boolean };
}

/**
 * Moderation in the upload pipeline: each stored upload, URL upload and replace is sent to the
 * moderation service by a job. hard_block quarantines the file (451) and tells its owner;
 * soft_flag marks it for an administrator; allow changes nothing.
 */
export class ModerationService {
  private visionLimit: { bytes: number; until: number } | undefined;

  constructor(private readonly deps: ModerationDeps) {}

  isModerated(mimeType: string): boolean {
    return this.deps.config.enabled && MODERATED_TYPES.test(mimeType);
  }

  /** Queues the check of a file's current content (a replace queues its own); a lost one the sweep finds. */
  async enqueue(file: FileRow): Promise<void> {
    if (!this.isModerated(file.mimeType)) return;
    await this.deps.jobs
      .add('moderation.check', { fileId: file.id, objectKey: file.objectKey }, { jobId: jobIds.moderationCheck(file.id, file.objectKey) })
      .catch((err: unknown) => this.deps.logger.error({ err, fileId: file.id }, 'could not queue a moderation check'));
  }

  /**
   * Safety net behind the checks queued at upload (a Redis outage may lose one): files still
   * unjudged a while after they were stored, with no check queued under their id, get one. A check
   * that failed for good (the service was down for days) stays failed, for an administrator to see.
   */
  async requeueLost(now = Date.now()): Promise<number> {
    if (!this.deps.config.enabled) return 0;
    const queue = this.deps.jobs.queue(JOBS['moderation.check'].queue);
    const cutoff = new Date(now - LOST_AFTER_MS);
    let requeued = 0;
    let after: string | undefined;
    for (;;) {
      const page = await this.deps.files.unjudged(MODERATED_TYPES.source, cutoff, SWEEP_BATCH, after);
      for (const file of page) {
        if (await queue.getJob(jobIds.moderationCheck(file.id, file.objectKey))) continue;
        await this.enqueue(file);
        requeued += 1;
      }
      if (page.length < SWEEP_BATCH) return requeued;
      after = page.at(-1)!.id;
    }
  }

  /** Whether serving must wait: quarantined files never, pending ones when so configured. */
  assertServable(file: FileRow): void {
    if (file.quarantined) throw new AppError(451, 'quarantined', 'This file was blocked by moderation');
    if (this.isHeldPending(file)) throw new AppError(451, 'pending_moderation', 'This file is waiting for moderation');
  }

  isServable(file: FileRow): boolean {
    return !file.quarantined && !this.isHeldPending(file);
  }

  private isHeldPending(file: FileRow): boolean {
    return this.deps.config.holdPending && !file.moderatedAt && this.isModerated(file.mimeType);
  }

  /**
   * Worker side. Throws (so the job retries with backoff) while the moderation service is
   * unreachable; content judged already (by an earlier attempt of its job) is left as it is.
   */
  async check(fileId: string, objectKey: string): Promise<Verdict | 'skipped' | 'gone' | 'judged'> {
    const file = await this.deps.files.findById(fileId);
    if (!file || file.objectKey !== objectKey) return 'gone';
    // A replace clears moderatedAt along with the new object key.
    if (file.moderatedAt) return 'judged';
    const maxBytes = await this.visionMaxBytes();
    // The service would refuse it (413) after receiving that much: do not send it at all. The row's
    // size is that of this object key's content (a replace stores a new key).
    if (maxBytes !== undefined && file.size > maxBytes) return this.recordUnjudged(file, { reason: 'larger than the service accepts' });
    const object = await this.deps.storage.get(objectKey);
    if (!object) return 'gone';
    const { status, body } = await postMultipart(
      `${this.deps.config.visionUrl}/moderate-media`,
      { field: 'file', filename: file.filename, contentType: file.mimeType, size: object.size, body: object.body },
      VISION_TIMEOUT_MS,
    );
    // The service cannot judge this content (corrupt, unsupported, too large): record that and move on.
    if (CANNOT_JUDGE.has(status)) return this.recordUnjudged(file, { status, body });
    const verdict = (body as { verdict?: string }).verdict as Verdict;
    if (status !== 200 || !VERDICTS.includes(verdict)) throw new Error(`moderation service answered ${status}`);
    const score = Number((body as { score?: number }).score ?? 0);
    const updated = await this.record(file, { verdict, score, quarantined: verdict === 'hard_block' });
    if (!updated) return 'gone';
    if (verdict === 'hard_block' && updated.owner) {
      await this.notifyBlocked(updated.file, updated.owner);
      await this.deps.events.files('file.quarantined', updated.owner, [updated.file]);
    }
    return verdict;
  }

  private async recordUnjudged(file: FileRow, why: Record<string, unknown>): Promise<'skipped' | 'gone'> {
    this.deps.logger.warn({ fileId: file.id, ...why }, 'the moderation service cannot judge a file');
    return (await this.record(file, { verdict: null, score: null, quarantined: false })) ? 'skipped' : 'gone';
  }

  /**
   * Stores a verdict for the content `file` was read with (undefined when it has changed since).
   * Cached lookups and CDN copies are purged only when what is served changed: a quarantine set or
   * lifted, or any verdict while pending files are held. For most uploads the verdict changes no
   * answer, and a purge job each would double the queue work of every upload.
   */
  private async record(file: FileRow, result: Parameters<FileMaintenanceRepository['recordModeration']>[2]) {
    const updated = await this.deps.files.recordModeration(file.id, file.objectKey, result);
    if (!updated) return undefined;
    const servingChanged = updated.quarantined !== file.quarantined || this.deps.config.holdPending;
    // The owner is needed to name the file's URLs in a purge, and to be told of a block.
    const owner = servingChanged || updated.quarantined ? await this.ownerOf(updated) : null;
    if (servingChanged) await this.deps.purges.fileChanged(updated, owner);
    return { file: updated, owner };
  }

  /** The service's max_file_size_mb in bytes, from its /info (cached); undefined when it does not say. */
  private async visionMaxBytes(): Promise<number | undefined> {
    if (this.visionLimit && this.visionLimit.until > Date.now()) return this.visionLimit.bytes;
    try {
      const res = await fetch(`${this.deps.config.visionUrl}/info`, { signal: AbortSignal.timeout(5000) });
      const megabytes = ((await res.json()) as { max_file_size_mb?: unknown }).max_file_size_mb;
      if (!res.ok || typeof megabytes !== 'number') return undefined;
      this.visionLimit = { bytes: megabytes * 1024 * 1024, until: Date.now() + LIMIT_TTL_MS };
      return this.visionLimit.bytes;
    } catch {
      // Unreachable now: the post below finds out, and the job retries.
      return undefined;
    }
  }

  /** Flagged and quarantined files awaiting review (admin CLI). */
  async flagged(limit = 100) {
    return (await this.deps.files.flagged(limit)).map((f) => ({
      id: f.id,
      accountId: f.accountId,
      filename: f.filename,
      verdict: f.moderationVerdict,
      score: f.moderationScore,
      quarantined: f.quarantined,
      moderatedAt: f.moderatedAt?.toISOString() ?? null,
    }));
  }

  /** An administrator's release: served again, and off the review list. */
  async release(fileId: string) {
    const file = z.uuid().safeParse(fileId).success ? await this.deps.files.release(fileId) : undefined;
    if (!file) throw AppError.notFound('File not found');
    await this.deps.purges.fileChanged(file, await this.ownerOf(file));
    return { id: file.id, filename: file.filename, quarantined: file.quarantined };
  }

  private async notifyBlocked(file: FileRow, owner: Principal) {
    await this.deps.notifications.notify(owner.id, {
      type: 'moderation',
      title: 'A file was blocked',
      message: `${file.filename} was blocked by automatic moderation and is no longer served.`,
      data: { filename: file.filename },
    });
  }

  private async ownerOf(file: FileRow): Promise<Principal | null> {
    const owner = file.accountId ? await this.deps.accounts.findById(file.accountId) : undefined;
    return owner ? principalOf(owner) : null;
  }
}
