import path from 'node:path';
import { QueueEvents } from 'bullmq';
import type { Config } from '../../config.js';
import { redisWithin, type DependencyHealth } from '../../dependency-health.js';
import { AppError } from '../../errors.js';
import { decodeJobError } from '../../job-errors.js';
import type { JobPayloads, JobQueues } from '../../jobs.js';
import { safeFetch } from '../../net/safe-fetch.js';
import { principalOf } from '../../principal.js';
import { createRedis } from '../../redis.js';
import type { AccountRepository } from '../../repositories/account.repository.js';
import type { UploadAuthService } from './upload-auth.service.js';
import type { UploadResult } from '../../contracts/upload.contract.js';
import type { UploadService } from './upload.service.js';

type UrlFetch = JobPayloads['url.fetch'];

// Time for queueing and storing on top of the worker's own download limit.
const QUEUE_MARGIN_MS = 60_000;
// The API waits this much past the job's answerBy, by which the worker has committed or given up.
const ANSWER_GRACE_MS = 30_000;
const TOO_LATE = 'The URL upload could not finish in time, nothing was saved; retry';

/**
 * Remote-URL uploads: the API puts a job on the url-fetch queue and waits for its result, so the
 * answer still carries a URL that works at once; a worker does the fetching.
 */
export class UrlUploadService {
  private events: QueueEvents | undefined;

  constructor(
    private readonly deps: {
      jobs: JobQueues;
      uploads: UploadService;
      uploadAuth: UploadAuthService;
      accounts: AccountRepository;
      health: DependencyHealth;
      config: Pick<Config, 'redisUrl' | 'redisPrefix' | 'urlFetch'>;
    },
  ) {}

  /**
   * API side: enqueue and wait for the worker's answer. The job carries the time by which it must
   * be answered; past it the worker stores nothing, so a 502 here always means nothing was saved.
   */
  async request(input: Omit<UrlFetch, 'answerBy'>): Promise<UploadResult> {
    const events = await this.queueEvents();
    const answerBy = Date.now() + this.deps.config.urlFetch.timeoutMs + QUEUE_MARGIN_MS;
    const job = await this.deps.jobs.add('url.fetch', { ...input, answerBy });
    try {
      return (await job.waitUntilFinished(events, answerBy - Date.now() + ANSWER_GRACE_MS)) as UploadResult;
    } catch (err) {
      const known = decodeJobError((err as Error).message);
      if (known) throw known;
      // Still queued (no worker came): it must never run. A running one stops itself at answerBy.
      await job.remove().catch(() => undefined);
      throw AppError.storageUnavailable(TOO_LATE);
    }
  }

  /**
   * Worker side: fetch with the SSRF-safe client and store the body as the uploader's file — unless
   * the API has stopped waiting (answerBy), in which case nothing is kept.
   */
  async fetchAndStore(payload: UrlFetch, signal?: AbortSignal): Promise<UploadResult> {
    const timeLeft = () => payload.answerBy - Date.now();
    if (timeLeft() <= 0) throw AppError.storageUnavailable(TOO_LATE);
    const row = payload.accountId ? await this.deps.accounts.findById(payload.accountId) : undefined;
    if (payload.accountId && !row) throw AppError.forbidden('Invalid API key');
    const account = row ? principalOf(row) : null;
    const uploader = account ? this.deps.uploadAuth.uploaderFor(account, payload.folderId) : { account: null, folderId: null };
    const receiving = this.deps.uploads.receiveOptionsFor(account);
    const { maxBytes } = receiving;

    const response = await safeFetch(payload.imageUrl, {
      timeoutMs: Math.min(this.deps.config.urlFetch.timeoutMs, timeLeft()),
      allowedOrigins: this.deps.config.urlFetch.allowedOrigins,
      ...(signal ? { signal } : {}),
    });
    const declaredType = response.headers['content-type'] ?? '';
    if (!/^image\//i.test(declaredType)) {
      response.body.destroy();
      throw AppError.badRequest(`The URL does not point to an image (content type: ${declaredType || 'none'})`);
    }
    if (response.contentLength !== undefined && response.contentLength > maxBytes) {
      response.body.destroy();
      throw AppError.tooLarge(`The image is larger than the limit of ${maxBytes} bytes`);
    }
    const received = await this.deps.uploads.receive(response.body, { ...receiving, requireImage: true, ...(signal ? { signal } : {}) });
    if (timeLeft() <= 0) {
      await this.deps.uploads.discard(received.objectKey);
      throw AppError.storageUnavailable(TOO_LATE);
    }
    return this.deps.uploads.commit(uploader, received, { originalName: nameFromUrl(response.url), expiry: payload.expiry, source: payload.source });
  }

  async close(): Promise<void> {
    await this.events?.close();
  }

  private async queueEvents(): Promise<QueueEvents> {
    if (!this.events) {
      const { redisUrl, redisPrefix } = this.deps.config;
      const events = new QueueEvents('url-fetch', { connection: createRedis(redisUrl, 'worker', this.deps.health), prefix: redisPrefix });
      events.on('error', (err) => this.deps.health.failed(err));
      try {
        await redisWithin(events.waitUntilReady(), 2000, 'url-fetch events');
      } catch (err) {
        void events.close().catch(() => undefined);
        throw err;
      }
      this.events = events;
    }
    return this.events;
  }
}

function nameFromUrl(url: string): string {
  try {
    return decodeURIComponent(path.posix.basename(new URL(url).pathname)) || 'image';
  } catch {
    return 'image';
  }
}
