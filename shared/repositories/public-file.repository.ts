import { and, count, desc, eq, getTableColumns, gt, isNull, like, or, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { accounts, files, folders, type FileRow, type FolderRow } from '../db/schema.js';
import { refusingUnstorableText } from './pg-errors.js';

/** A shared folder as its album link finds it, with the owner's name for the files' URLs. */
export type AlbumRow = FolderRow & { username: string };

/** The folder whose files an album lists; a share link's album lists the private ones too. */
export type AlbumSource = Pick<FolderRow, 'id' | 'accountId'> & { includePrivate?: boolean };

export interface AlbumPageQuery {
  limit: number;
  offset: number;
  /** only images (the album's cover for link previews) */
  imagesOnly?: boolean;
}

/**
 * Lookups by what a public URL names without an account: an anonymous upload's name, a short code,
 * an album's share id. They take no owner because the URL is all a visitor has, so they are kept
 * out of FileRepository and FolderRepository, where every statement is the owner's: only the
 * services that serve to visitors get this.
 */
export class PublicFileRepository {
  constructor(private readonly db: Database) {}

  async findAnonymous(filename: string): Promise<FileRow | undefined> {
    const [row] = await refusingUnstorableText(() =>
      this.db
        .select()
        .from(files)
        .where(and(isNull(files.accountId), eq(files.filename, filename))),
    );
    return row;
  }

  async findByShortCode(code: string): Promise<FileRow | undefined> {
    const [row] = await refusingUnstorableText(() => this.db.select().from(files).where(eq(files.shortCode, code)));
    return row;
  }

  /** The folder shared under `shareId`; none once it is unshared or deleted. */
  async findAlbum(shareId: string): Promise<AlbumRow | undefined> {
    const [row] = await refusingUnstorableText(() =>
      this.db
        .select({ ...getTableColumns(folders), username: accounts.username })
        .from(folders)
        .innerJoin(accounts, eq(accounts.id, folders.accountId))
        .where(eq(folders.shareId, shareId)),
    );
    return row;
  }

  /**
   * An album's files, newest first: those of its folder that are public, not expired at `now` and
   * not quarantined. All of them without `page` (the zip; its central directory names every one anyway).
   */
  async albumFiles(album: AlbumSource, now: Date, page?: AlbumPageQuery): Promise<FileRow[]> {
    const query = this.db
      .select()
      .from(files)
      .where(page?.imagesOnly ? and(albumFilter(album, now), like(files.mimeType, 'image/%')) : albumFilter(album, now))
      .orderBy(desc(files.createdAt), desc(files.id))
      .$dynamic();
    return refusingUnstorableText(() => (page ? query.limit(page.limit).offset(page.offset) : query));
  }

  async countAlbumFiles(album: AlbumSource, now: Date): Promise<number> {
    const [row] = await refusingUnstorableText(() => this.db.select({ n: count() }).from(files).where(albumFilter(album, now)));
    return row?.n ?? 0;
  }
}

function albumFilter(album: AlbumSource, now: Date): SQL {
  return and(
    eq(files.accountId, album.accountId),
    eq(files.folderId, album.id),
    album.includePrivate ? undefined : eq(files.isPrivate, false),
    eq(files.quarantined, false),
    or(isNull(files.expiresAt), gt(files.expiresAt, now)),
  )!;
}
