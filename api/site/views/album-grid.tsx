import { File, FileImage, Film } from 'lucide';
import type { AlbumFile } from '../../../shared/contracts/album.contract.js';
import { formatBytes } from './format-bytes.js';
import { Icon } from './icon.js';

/** What a tile hands the lightbox (site.tsx reads it from the link's data attributes). */
type Viewed = { kind: 'image' | 'video' | 'other'; src: string };

/**
 * How the lightbox shows a file: its preview rendition when there is one; else the file itself,
 * unless `countsViews` (a share link's files, where each load of a file counts a view), then nothing.
 */
function viewedAs(file: AlbumFile, countsViews: boolean): Viewed {
  if (file.previewUrl) return { kind: 'image', src: file.previewUrl };
  if (countsViews) return { kind: 'other', src: '' };
  if (file.mimeType.startsWith('image/')) return { kind: 'image', src: file.url };
  if (file.mimeType.startsWith('video/')) return { kind: 'video', src: file.url };
  return { kind: 'other', src: '' };
}

function TilePicture({ file, countsViews }: { file: AlbumFile; countsViews: boolean }) {
  // The thumbnail's own size reserves its box before it loads; the caption names the file, so alt stays empty.
  if (file.thumbnail) return <img src={file.thumbnail.url} width={file.thumbnail.width} height={file.thumbnail.height} alt="" loading="lazy" />;
  if (!countsViews && file.mimeType.startsWith('image/')) return <img src={file.url} alt="" loading="lazy" />;
  return (
    <span class="tile-icon">
      <Icon icon={file.mimeType.startsWith('video/') ? Film : file.mimeType.startsWith('image/') ? FileImage : File} size={40} />
    </span>
  );
}

/**
 * An album's files as a grid of named tiles, each a plain link to its file; with script, site.tsx
 * opens them in the lightbox from the data attributes instead.
 */
export function AlbumGrid({ files, countsViews }: { files: AlbumFile[]; countsViews: boolean }) {
  return (
    <ul class="album-grid" data-lightbox-grid>
      {files.map((file) => {
        const viewed = viewedAs(file, countsViews);
        return (
          <li key={file.url} class="album-tile">
            <a
              href={file.url}
              class="tile-link"
              data-view-kind={viewed.kind}
              data-view-src={viewed.src}
              data-view-width={file.thumbnail?.width}
              data-view-height={file.thumbnail?.height}
              data-view-name={file.filename}
            >
              <span class="tile-media">
                <TilePicture file={file} countsViews={countsViews} />
              </span>
              <span class="tile-caption">
                <span class="tile-name" title={file.filename}>
                  {file.filename}
                </span>
                <span class="tile-size">{formatBytes(file.sizeBytes)}</span>
              </span>
            </a>
          </li>
        );
      })}
    </ul>
  );
}
