import path from 'node:path';
import { QueueEvents } from 'bullmq';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { decodeJobError } from '../job-errors.js';
import type { JobPayloads, JobQueues } from '../jobs.js';
import { safeFetch } from '../net/safe-fetch.js';
import { createRedis } from '../redis.js';
import type { AccountRepository } from '../repositories/account.repository.js';
import type { UploadAuthService } from './upload-auth.service.js';
import type { UploadResult, UploadService } from './upload.service.js';

type UrlFetch = JobPayloads['url.fetch'];

// The worker's own download limit plus time for queueing and storing.
const WAIT_MARGIN_MS = 60_000;

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
      config: Pick<Config, 'redisUrl' | 'redisPrefix' | 'urlFetch'>;
    },
  ) {}

  /** API side: enqueue and wait for the worker's answer. */
  async request(payload: UrlFetch): Promise<UploadResult> {
    const events = await this.queueEvents();
    const job = await this.deps.jobs.add('url.fetch', payload);
    try {
      return (await job.waitUntilFinished(events, this.deps.config.urlFetch.timeoutMs + WAIT_MARGIN_MS)) as UploadResult;
    } catch (err) {
      throw decodeJobError((err as Error).message) ?? AppError.storageUnavailable('The URL upload failed, nothing was saved; retry');
    }
  }

  /** Worker side: fetch with the SSRF-safe client and store the body as the uploader's file. */
  async fetchAndStore(payload: UrlFetch, signal?: AbortSignal): Promise<UploadResult> {
    const account = payload.accountId ? ((await this.deps.accounts.findById(payload.accountId)) ?? null) : null;
    if (payload.accountId && !account) throw AppError.forbidden('Invalid API key');
    const uploader = account ? this.deps.uploadAuth.uploaderFor(account, payload.folderId) : { account: null, folderId: null };
    const maxBytes = this.deps.uploads.maxBytesFor(account);

    const response = await safeFetch(payload.imageUrl, {
      timeoutMs: this.deps.config.urlFetch.timeoutMs,
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
    return this.deps.uploads.upload(uploader, response.body, {
      originalName: nameFromUrl(response.url),
      expiry: payload.expiry,
      source: payload.source,
      requireImage: true,
      ...(signal ? { signal } : {}),
    });
  }

  async close(): Promise<void> {
    await this.events?.close();
  }

  private async queueEvents(): Promise<QueueEvents> {
    if (!this.events) {
      const { redisUrl, redisPrefix } = this.deps.config;
      this.events = new QueueEvents('url-fetch', { connection: createRedis(redisUrl, 'worker'), prefix: redisPrefix });
      await this.events.waitUntilReady();
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
