import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { FileRow } from '../../db/schema.js';
import { AppError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Principal } from '../../principal.js';
import type { FolderRepository } from '../../repositories/folder.repository.js';
import type { AlbumRow, AlbumSource, PublicFileRepository } from '../../repositories/public-file.repository.js';
import type { StorageDriver } from '../../storage/index.js';
import type { FileUrls } from '../files/file-urls.js';
import { albumUrl, isId } from './folder.service.js';
import type { ModerationService } from '../moderation/moderation.service.js';
import type { ThumbnailService } from '../media/thumbnails/thumbnail.service.js';
import type { AlbumFile } from '../../contracts/album.contract.js';
import type { DomainEvents } from '../webhooks/domain-events.js';

/** Files on one page of an album. */
export const ALBUM_PAGE_SIZE = 24;

// randomBytes(16) in base64url: 128 bits, 22 characters. Anything else names no album.
const SHARE_ID = /^[A-Za-z0-9_-]{22}$/;

export interface AlbumDeps {
  folders: FolderRepository;
  publicFiles: PublicFileRepository;
  storage: StorageDriver;
  moderation: ModerationService;
  thumbnails: ThumbnailService;
  urls: FileUrls;
  events: DomainEvents;
  logger: Logger;
  siteUrl: string;
}

/** An album's page as any link shows it. */
export interface AlbumView {
  name: string;
  owner: string;
  url: string;
  downloadUrl: string;
  files: AlbumFile[];
  /** the newest image of the whole album, for link previews */
  cover: AlbumFile | null;
  page: number;
  totalPages: number;
  totalFiles: number;
}

export interface AlbumPage extends AlbumView {
  shareId: string;
}

export interface AlbumZip {
  /** the folder's name, for the attachment's name */
  name: string;
  /** the zip's exact length (every entry is stored, not compressed, so it is known in advance) */
  size: number | undefined;
  body: Readable;
}

/**
 * Shared albums: a folder made public under an unguessable link. Visitors see (and download as one
 * zip) the folder's public, live files; private, expired and quarantined ones never appear. The
 * album is the folder itself, so deleting the folder or moving a file out changes it at once.
 */
export class AlbumService {
  constructor(private readonly deps: AlbumDeps) {}

  /** Shares the folder; a folder shared already keeps its link (and folder.shared is not sent again). */
  async share(account: Principal, folderId: string) {
    const shareId = randomBytes(16).toString('base64url');
    const row = isId(folderId) ? await this.deps.folders.share(account.id, folderId, shareId) : undefined;
    if (!row?.shareId || !row.sharedAt) throw AppError.notFound('Folder not found');
    const album = { shareId: row.shareId, url: albumUrl(this.deps.siteUrl, row.shareId), sharedAt: row.sharedAt.toISOString() };
    if (row.shareId === shareId) await this.deps.events.emit(account.id, 'folder.shared', () => [{ id: row.id, name: row.name, ...album }]);
    return album;
  }

  /** Ends the album: its link is 404 at once, and sharing again makes a new one. */
  async unshare(account: Principal, folderId: string): Promise<void> {
    if (!isId(folderId) || !(await this.deps.folders.unshare(account.id, folderId))) throw AppError.notFound('Folder not found');
  }

  /** One page (from 1) of the album, newest first. */
  async page(shareId: string, page: number): Promise<AlbumPage> {
    const album = await this.find(shareId);
    const url = albumUrl(this.deps.siteUrl, shareId);
    return { shareId, ...(await this.pageOf(album, { url, page, fileUrl: (file) => this.deps.urls.forFile(file, { username: album.username }) })) };
  }

  /**
   * A share link's album: the folder's files, private ones included, each under the link's own URL.
   * Private files show no thumbnail (theirs are the owner's alone); the page never loads the files.
   */
  async linkPage(folder: AlbumRow, linkUrl: string, page: number): Promise<AlbumView> {
    return this.pageOf({ ...folder, includePrivate: true }, { url: linkUrl, page, fileUrl: (file) => `${linkUrl}/f/${encodeURIComponent(file.filename)}` });
  }

  /** A private file's renditions are its owner's alone: an album shows none for it. */
  private renditionsOf(file: FileRow): Pick<AlbumFile, 'thumbnail' | 'previewUrl'> {
    const thumbnail = file.isPrivate ? null : this.deps.thumbnails.imageOf(file);
    return { thumbnail, previewUrl: thumbnail && this.deps.thumbnails.urlsOf(file).previewUrl };
  }

  private async pageOf(album: AlbumRow & AlbumSource, view: { url: string; page: number; fileUrl: (file: FileRow) => string }): Promise<AlbumView> {
    const now = new Date();
    const { page, url } = view;
    const [rows, totalFiles, [newestImage]] = await Promise.all([
      this.deps.publicFiles.albumFiles(album, now, { limit: ALBUM_PAGE_SIZE, offset: (page - 1) * ALBUM_PAGE_SIZE }),
      this.deps.publicFiles.countAlbumFiles(album, now),
      this.deps.publicFiles.albumFiles(album, now, { limit: 1, offset: 0, imagesOnly: true }),
    ]);
    const toAlbumFile = (file: FileRow): AlbumFile => ({
      filename: file.filename,
      url: view.fileUrl(file),
      mimeType: file.mimeType,
      sizeBytes: file.size,
      createdAt: file.createdAt.toISOString(),
      ...this.renditionsOf(file),
    });
    return {
      name: album.name,
      owner: album.username,
      url,
      downloadUrl: `${url}/download`,
      files: rows.filter((file) => this.isListed(file)).map(toAlbumFile),
      cover: newestImage && this.isListed(newestImage) ? toAlbumFile(newestImage) : null,
      page,
      totalPages: Math.max(1, Math.ceil(totalFiles / ALBUM_PAGE_SIZE)),
      totalFiles,
    };
  }

  /**
   * Every listed file as one zip, read from storage one file at a time while the zip is read: no
   * file is opened before its turn, and nothing is held beyond the streams' buffers.
   */
  async zip(shareId: string): Promise<AlbumZip> {
    return this.zipOf(await this.find(shareId));
  }

  /** A share link's zip: the folder's files, private ones included. */
  linkZip(folder: AlbumRow): Promise<AlbumZip> {
    return this.zipOf({ ...folder, includePrivate: true });
  }

  private async zipOf(album: AlbumRow & AlbumSource): Promise<AlbumZip> {
    const files = (await this.deps.publicFiles.albumFiles(album, new Date())).filter((file) => this.isListed(file));
    const zip = new ZipFile();
    const output = zip.outputStream as Readable;
    let reading: Readable | undefined;
    const fail = (err: unknown) => {
      this.deps.logger.error({ err, folderId: album.id }, 'album zip failed');
      output.destroy(err instanceof Error ? err : new Error(String(err)));
    };
    zip.on('error', fail);
    // A visitor who stops downloading must not leave the file being read open.
    output.once('close', () => reading?.destroy());
    for (const file of files) {
      // Images and videos are compressed already: stored entries cost no CPU and make the length known.
      zip.addReadStreamLazy(file.filename, { size: file.size, mtime: file.createdAt, compress: false }, (done) => {
        this.deps.storage.get(file.objectKey).then((object) => {
          if (!object) return fail(new Error(`object ${file.objectKey} of file ${file.id} is missing`));
          if (output.destroyed) return object.body.destroy();
          reading = object.body.once('error', fail);
          done(null, reading);
        }, fail);
      });
    }
    let size: number | undefined;
    // yazl reports the total synchronously when every entry's size is known; its types omit the argument.
    const reportSize = ((total: number | null) => {
      if (typeof total === 'number' && total >= 0) size = total;
    }) as () => void;
    zip.end({ forceZip64Format: false, comment: '' }, reportSize);
    return { name: album.name, size, body: output };
  }

  private async find(shareId: string): Promise<AlbumRow> {
    const album = SHARE_ID.test(shareId) ? await this.deps.publicFiles.findAlbum(shareId) : undefined;
    if (!album) throw AppError.notFound('Album not found');
    return album;
  }

  /** The query leaves out private, expired and quarantined files; files held for moderation stay out too. */
  private isListed(file: FileRow): boolean {
    return this.deps.moderation.isServable(file);
  }
}
