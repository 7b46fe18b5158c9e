import type { AlbumFile, AlbumPage } from '../../../shared/services/folders/album.service.js';
import type { ThumbnailImage } from '../../../shared/services/media/thumbnails/thumbnail.service.js';
import { embedTags } from './embed-tags.js';
import { html, type SafeHtml } from './html.js';

// Served at /assets/album.css: the pages' CSP allows no inline style.
export const ALBUM_CSS = `
main.album { max-width: 1100px; }
.album-meta { color: #5a6275; }
.album-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 12px; padding: 0; list-style: none; }
.album-grid li { background: #fff; border-radius: 8px; box-shadow: 0 1px 3px #0002; overflow: hidden; }
.album-grid img { display: block; width: 100%; height: 200px; object-fit: cover; background: #eef; }
.album-grid .file { display: flex; align-items: center; justify-content: center; height: 200px; background: #eef; word-break: break-all; padding: 8px; }
.album-grid .caption { display: block; padding: 6px 8px; font-size: 0.85em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.album-pages { display: flex; gap: 16px; justify-content: center; margin: 24px 0; }
`;

function item(file: AlbumFile): SafeHtml {
  // The thumbnail's own size reserves its box before it loads; an image without one shows the file itself.
  const preview = file.thumbnail
    ? html`<img src="${file.thumbnail.url}" width="${file.thumbnail.width}" height="${file.thumbnail.height}" alt="${file.filename}" loading="lazy">`
    : file.mimeType.startsWith('image/')
      ? html`<img src="${file.url}" alt="${file.filename}" loading="lazy">`
      : html`<span class="file">${file.filename}</span>`;
  return html`<li><a href="${file.url}">${preview}<span class="caption">${file.filename}</span></a></li>`;
}

function pageLinks(album: AlbumPage): SafeHtml {
  if (album.totalPages <= 1) return html``;
  const to = (page: number) => `${album.url}?page=${page}`;
  return html`<nav class="album-pages">
${album.page > 1 ? html`<a rel="prev" href="${to(album.page - 1)}">Newer</a>` : ''}
<span>Page ${album.page} of ${album.totalPages}</span>
${album.page < album.totalPages ? html`<a rel="next" href="${to(album.page + 1)}">Older</a>` : ''}
</nav>`;
}

/**
 * A whole album page: the files as a grid, and the link-preview tags (`cover`: the preview rendition
 * of its newest image; `baseUrl`: where the oEmbed endpoint is).
 */
export function albumDocument(album: AlbumPage, cover: ThumbnailImage | null, baseUrl: string): string {
  const count = `${album.totalFiles} ${album.totalFiles === 1 ? 'file' : 'files'}`;
  const description = `${count} shared by ${album.owner}`;
  return `<!DOCTYPE html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${album.name} · Hosted Files</title>
<meta name="description" content="${description}">
${embedTags({ title: album.name, description, url: album.url, image: cover }, baseUrl)}
<link rel="canonical" href="${album.url}">
<link rel="stylesheet" href="/assets/site.css">
<link rel="stylesheet" href="/assets/album.css">
</head>
<body>
<header><a href="/" class="brand">Hosted Files</a></header>
<main class="album">
<h1>${album.name}</h1>
<p class="album-meta">${description} · <a href="${album.downloadUrl}" download>Download all (zip)</a></p>
${album.files.length ? html`<ul class="album-grid">${album.files.map(item)}</ul>` : html`<p>Nothing here yet.</p>`}
${pageLinks(album)}
</main>
</body>
</html>`}`;
}
