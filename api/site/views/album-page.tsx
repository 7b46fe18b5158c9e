import { Download, ImageOff } from 'lucide';
import type { AlbumPage } from '../../../shared/contracts/album.contract.js';
import { AlbumGrid } from './album-grid.js';
import { Icon } from './icon.js';
import { Page, type PageFrame } from './page.js';

/** An album's page as any link shows it (a share link's has no share id of its own). */
export type AlbumView = Omit<AlbumPage, 'shareId'>;

/** "3 files shared by alice": the album's line under its name, and its link previews' description. */
export function albumSummary(album: Pick<AlbumView, 'totalFiles' | 'owner'>): string {
  return `${album.totalFiles} ${album.totalFiles === 1 ? 'file' : 'files'} shared by ${album.owner}`;
}

/**
 * A shared folder's page, from an album link or a folder's share link: its name, the zip, the files
 * as a grid and the pages. `countsViews`: the files are a share link's, which count a view when loaded.
 */
export function AlbumPage({ frame, album, countsViews }: { frame: PageFrame; album: AlbumView; countsViews: boolean }) {
  return (
    <Page frame={frame} wide>
      <section class="album" aria-labelledby="album-title">
        <div class="album-head">
          <div>
            <h1 id="album-title">{album.name}</h1>
            <p class="album-meta muted">{albumSummary(album)}</p>
          </div>
          {album.totalFiles > 0 && (
            <a class="button" href={album.downloadUrl} download>
              <Icon icon={Download} />
              Download all (zip)
            </a>
          )}
        </div>
        {album.files.length ? <AlbumGrid files={album.files} countsViews={countsViews} /> : <EmptyAlbum album={album} />}
        <AlbumPages album={album} />
      </section>
    </Page>
  );
}

function EmptyAlbum({ album }: { album: AlbumView }) {
  const pastTheEnd = album.totalFiles > 0;
  return (
    <div class="album-empty card">
      <span class="album-empty-icon">
        <Icon icon={ImageOff} size={32} />
      </span>
      {pastTheEnd ? (
        <p>
          There are no files on this page. <a href={album.url}>Go to the first page</a>
        </p>
      ) : (
        <p>
          No files here yet. Files {album.owner} adds to this folder appear here: come back to this link later.
        </p>
      )}
    </div>
  );
}

function AlbumPages({ album }: { album: AlbumView }) {
  if (album.totalPages <= 1) return null;
  const to = (page: number) => `${album.url}?page=${page}`;
  return (
    <nav class="album-pages" aria-label="Pages">
      {album.page > 1 && (
        <a class="button" rel="prev" href={to(album.page - 1)}>
          Newer
        </a>
      )}
      <span>
        Page {album.page} of {album.totalPages}
      </span>
      {album.page < album.totalPages && (
        <a class="button" rel="next" href={to(album.page + 1)}>
          Older
        </a>
      )}
    </nav>
  );
}
