import { Readable } from 'node:stream';
import type { FileRow } from '../../../db/schema.js';
import { AppError, isAppError } from '../../../errors.js';
import { jobIds, type JobQueues } from '../../../jobs.js';
import type { Logger } from '../../../logger.js';
import type { Principal } from '../../../principal.js';
import type { FileMaintenanceRepository } from '../../../repositories/file-maintenance.repository.js';
import type { ObjectBody, StorageDriver } from '../../../storage/index.js';
import type { FileUrls } from '../../files/file-urls.js';
import type { HostedFileService } from '../../files/hosted-file.service.js';
import type { ModerationService } from '../../moderation/moderation.service.js';
import type { ImageSizeReader } from '../image-size-reader.js';
import { withObjectFile } from '../media-source.js';
import { renditionKey, renditionKeysOf, renditionUrl, versionOf } from './thumbnail-keys.js';
import { RENDITION_NAMES, type RenditionName, type Renditions, renderThumbnails } from './thumbnail-renderer.js';

// Stills, animations (first frame) and videos (a frame from ffmpeg). SVG is drawn by browsers
// themselves, and rasterising untrusted SVG would only add a parser to attack.
const THUMBNAILED_TYPES = /^(?:image\/(?!svg)|video\/)/;

/** Where thumbnails are served, on SITE_URL: `/thumbnails/{shortCode}/{version}/{rendition}.webp`. */

export interface ThumbnailUrls {
  thumbnailUrl: string | null;
  previewUrl: string | null;
}

/** A page's `<img>` of the small rendition, with its size so the page keeps its layout while it loads. */
export interface ThumbnailImage {
  url: string;
  width: number;
  height: number;
}

export interface ThumbnailRequest {
  code: string;
  version: string;
  rendition: string;
  /** a private file's link signature (query `expires`, `signature`), which stands for its owner's session */
  expires?: unknown;
  signature?: unknown;
}

/** A thumbnail that may be sent to this request, before its bytes are read. */
export interface ServableThumbnail {
  key: string;
  etag: string;
  /** only its owner may see it: no shared cache may keep it */
  isPrivate: boolean;
}

export type ThumbnailOutcome = 'made' | 'none' | 'gone' | 'done';

/**
 * Thumbnails: a job per stored content renders a small WebP and a larger preview beside the file's
 * object (removed with it), recorded on the file row; they are served at versioned URLs under the
 * same rules as the file itself (and a private file's only to its signed-in owner).
 */
export class ThumbnailService {
  constructor(
    private readonly deps: {
      /** any account's files by id: the job acts for no owner */
      files: FileMaintenanceRepository;
      storage: StorageDriver;
      hosted: HostedFileService;
      moderation: ModerationService;
      jobs: JobQueues;
      logger: Logger;
      sizes: ImageSizeReader;
      siteUrl: string;
      urls: Pick<FileUrls, 'verifyPrivateLink'>;
    },
  ) {}

  isThumbnailed(mimeType: string): boolean {
    return THUMBNAILED_TYPES.test(mimeType);
  }

  /** Queues the thumbnails of a file's current content; without them the file just shows none. */
  async enqueue(file: FileRow): Promise<void> {
    if (!this.isThumbnailed(file.mimeType)) return;
    await this.deps.jobs
      .add('file.thumbnail', { fileId: file.id, objectKey: file.objectKey }, { jobId: jobIds.fileThumbnail(file.id, file.objectKey) })
      .catch((err: unknown) => this.deps.logger.error({ err, fileId: file.id }, 'could not queue thumbnails'));
  }

  /**
   * Worker side: renders and stores both renditions of the content `objectKey`. Content that cannot
   * be decoded (or is a decompression bomb) gets none; only storage and database failures throw (retried).
   */
  async make(fileId: string, objectKey: string, signal?: AbortSignal): Promise<ThumbnailOutcome> {
    const file = await this.deps.files.findById(fileId);
    if (!file || file.objectKey !== objectKey) return 'gone';
    if (file.thumbnailAt) return 'done';
    if (!this.isThumbnailed(file.mimeType)) return 'none';
    const rendered = await withObjectFile(this.deps.storage, objectKey, signal, (path) =>
      renderThumbnails(path, file.mimeType.startsWith('video/') ? 'video' : 'image', signal).catch((err: unknown) => {
        if (signal?.aborted) throw err;
        this.deps.logger.info({ fileId, err: (err as Error).message }, 'no thumbnail: the content cannot be decoded');
        return null;
      }),
    );
    if (rendered === 'gone') return 'gone';
    if (!rendered) return 'none';
    await this.store(objectKey, rendered);
    const { width, height } = rendered.small;
    if (await this.deps.files.recordThumbnail(fileId, objectKey, { width, height })) return 'made';
    // Replaced or deleted meanwhile: its old object's delete may have run already.
    await this.remove(objectKey);
    return 'gone';
  }

  /** The dashboard's links; null while there are none, or while the file is not served. */
  urlsOf(file: FileRow): ThumbnailUrls {
    if (!this.isShown(file)) return { thumbnailUrl: null, previewUrl: null };
    return { thumbnailUrl: this.urlOf(file, 'small'), previewUrl: this.urlOf(file, 'preview') };
  }

  /** The small rendition as a page shows it, if the file has one. */
  imageOf(file: FileRow): ThumbnailImage | null {
    if (!this.isShown(file) || !file.thumbnailWidth || !file.thumbnailHeight) return null;
    return { url: this.urlOf(file, 'small'), width: file.thumbnailWidth, height: file.thumbnailHeight };
  }

  /** The preview rendition as link previews (OpenGraph, oEmbed) show it, with its size read from its header. */
  async previewOf(file: FileRow): Promise<ThumbnailImage | null> {
    if (!this.isShown(file)) return null;
    const size = await this.deps.sizes.of(renditionKey(file.objectKey, 'preview'));
    return size && { url: this.urlOf(file, 'preview'), ...size };
  }

  /**
   * The thumbnail a URL names, if this request may see it: the file is served publicly (not expired,
   * quarantined or held for moderation), the version is its current content's, and a private file's
   * URL is signed for it or its viewer (asked only then) is its owner. Every refusal is the same 404.
   */
  async find(request: ThumbnailRequest, viewer: () => Promise<Pick<Principal, 'id'> | undefined>): Promise<ServableThumbnail> {
    const rendition = RENDITION_NAMES.find((name) => name === request.rendition);
    if (!rendition) throw AppError.notFound();
    const file = await this.deps.hosted.find({ kind: 'short', code: request.code }).catch((err: unknown) => {
      throw isAppError(err) && (err.status === 404 || err.status === 451) ? AppError.notFound() : err;
    });
    if (versionOf(file) !== request.version) throw AppError.notFound();
    if (file.isPrivate && !this.deps.urls.verifyPrivateLink(file, request.expires, request.signature) && (await viewer())?.id !== file.accountId) {
      throw AppError.notFound();
    }
    return { key: renditionKey(file.objectKey, rendition), etag: `"${request.version}-${rendition}"`, isPrivate: file.isPrivate };
  }

  /** The bytes of a thumbnail `find` allowed; 404 while it is not made (or cannot be). */
  async open(thumbnail: ServableThumbnail): Promise<ObjectBody> {
    const object = await this.deps.storage.get(thumbnail.key);
    if (!object) throw AppError.notFound();
    return object;
  }

  private isShown(file: FileRow): boolean {
    return file.thumbnailAt !== null && this.deps.moderation.isServable(file);
  }

  private urlOf(file: FileRow, rendition: RenditionName): string {
    return renditionUrl(this.deps.siteUrl, file, rendition);
  }

  private async store(objectKey: string, rendered: Renditions): Promise<void> {
    await Promise.all(
      RENDITION_NAMES.map(async (name) => {
        const key = renditionKey(objectKey, name);
        // Keys are written once: an earlier attempt of this job may have stored it already.
        await this.deps.storage.delete(key);
        await this.deps.storage.put(key, Readable.from([rendered[name].data]), { contentType: 'image/webp' });
      }),
    );
  }

  private async remove(objectKey: string): Promise<void> {
    await Promise.all(renditionKeysOf(objectKey).map((key) => this.deps.storage.delete(key)));
  }
}

