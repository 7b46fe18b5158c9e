import type { OEmbed } from '../../contracts/oembed.contract.js';
import { AppError, isAppError } from '../../errors.js';
import type { HostedFileService, HostedTarget } from '../files/hosted-file.service.js';
import type { AlbumService } from '../folders/album.service.js';
import type { OpenShareLink, ShareLinkService } from '../folders/share-link.service.js';
import type { ImageSizeReader } from './image-size-reader.js';
import type { ThumbnailImage, ThumbnailService } from './thumbnails/thumbnail.service.js';

export const PROVIDER_NAME = 'Hosted Files';

/** What a pasted link names: a hosted file (at `url`, in any of its styles), a shared album or a share link. */
export type EmbedTarget = { kind: 'file'; file: HostedTarget; url: string } | { kind: 'album'; shareId: string } | { kind: 'share'; token: string };
/** The consumer's `maxwidth` and `maxheight`: no image in the answer is larger. */
export interface EmbedBounds {
  width?: number | undefined;
  height?: number | undefined;
}
type Image = { width: number; height: number };

/**
 * oEmbed answers for pasted links: a public image is a photo with its own size, an album (or any
 * other public file) and a password-less share link a link with its preview rendition as thumbnail.
 * Whatever a visitor could not open without a signature or a password — private, expired, quarantined,
 * unknown, a share link with a password or out of views — is the same 404.
 */
export class EmbedService {
  constructor(
    private readonly deps: {
      hosted: HostedFileService;
      albums: AlbumService;
      shareLinks: ShareLinkService;
      thumbnails: ThumbnailService;
      sizes: ImageSizeReader;
      siteUrl: string;
    },
  ) {}

  /**
   * Within `bounds` (oEmbed's maxwidth/maxheight): a photo larger than them is answered by the largest
   * of its renditions that fits, else as a link; a thumbnail larger than them is left out.
   */
  async oembed(target: EmbedTarget, bounds: EmbedBounds = {}): Promise<OEmbed> {
    const fits = <T extends Image>(image: T | null): T | null => (image && within(image, bounds) ? image : null);
    if (target.kind === 'album') {
      const album = await this.deps.albums.page(target.shareId, 1);
      return { ...this.common(album.name), type: 'link', ...thumbnailOf(fits(await this.coverOf(album))) };
    }
    if (target.kind === 'share') return this.shareLink(await this.deps.shareLinks.open(target.token).catch(asNotFound), fits);
    const file = await this.deps.hosted.find(target.file).catch(asNotFound);
    // A private file's links are signed for minutes: an embed would break, and must not reveal the file.
    if (file.isPrivate) throw AppError.notFound('File not found');
    const size = file.mimeType.startsWith('image/') ? await this.deps.sizes.of(file.objectKey) : null;
    if (fits(size)) return { ...this.common(file.filename), type: 'photo', url: target.url, ...size! };
    // The largest rendition that fits: the preview (at most 1280 px), else the small thumbnail.
    const rendition = fits(await this.deps.thumbnails.previewOf(file)) ?? fits(this.deps.thumbnails.imageOf(file));
    if (size && rendition) return { ...this.common(file.filename), type: 'photo', ...rendition };
    return { ...this.common(file.filename), type: 'link', ...thumbnailOf(rendition) };
  }

  /**
   * A share link without a password: its file's or folder's name and preview. Asking counts no view; a
   * private file's preview is its owner's alone, so a link to one (or a folder whose newest image is
   * private) has no thumbnail.
   */
  private async shareLink(link: OpenShareLink, fits: <T extends Image>(image: T | null) => T | null): Promise<OEmbed> {
    if (link.hasPassword) throw AppError.notFound('Share link not found');
    if (link.file) {
      const preview = link.file.isPrivate ? null : await this.deps.thumbnails.previewOf(link.file);
      return { ...this.common(link.file.filename), type: 'link', ...thumbnailOf(fits(preview)) };
    }
    const album = await this.deps.shareLinks.page(link, 1);
    return { ...this.common(album.name), type: 'link', ...thumbnailOf(fits(await this.coverOf(album))) };
  }

  /** The preview rendition of an album's cover (its newest image), for link previews; null until it is made. */
  async coverOf(album: { owner: string; cover: { filename: string } | null }): Promise<ThumbnailImage | null> {
    if (!album.cover) return null;
    const file = await this.deps.hosted.find({ kind: 'owned', username: album.owner, filename: album.cover.filename }).catch((err: unknown) => {
      if (isAppError(err) && err.status < 500) return null;
      throw err;
    });
    // A private file's renditions are its owner's alone: no crawler could fetch them.
    if (!file || file.isPrivate) return null;
    // A page still renders while storage fails, without its image.
    return this.deps.thumbnails.previewOf(file).catch((err: unknown) => {
      if (isAppError(err) && err.code === 'storage_unavailable') return null;
      throw err;
    });
  }

  private common(title: string) {
    return { version: '1.0' as const, title, provider_name: PROVIDER_NAME, provider_url: `${this.deps.siteUrl}/` };
  }
}

/** Gone (410: a share link expired or out of views) and quarantined (451) are not said to exist either. */
function asNotFound(err: unknown): never {
  throw isAppError(err) && (err.status === 410 || err.status === 451) ? AppError.notFound('Not found') : err;
}

function within(image: Image, bounds: EmbedBounds): boolean {
  return image.width <= (bounds.width ?? Infinity) && image.height <= (bounds.height ?? Infinity);
}

function thumbnailOf(image: ThumbnailImage | null) {
  return image ? { thumbnail_url: image.url, thumbnail_width: image.width, thumbnail_height: image.height } : {};
}
