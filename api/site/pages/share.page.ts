import type { AlbumFile, AlbumView } from '../../../shared/services/folders/album.service.js';
import type { ThumbnailImage } from '../../../shared/services/media/thumbnails/thumbnail.service.js';
import { formatBytes } from './drop.page.js';
import { embedTags } from './embed-tags.js';
import { html, type SafeHtml } from './html.js';

/**
 * What a share link's page shows: the password form, or a folder link's album once let in; `preview`
 * (links without a password only) adds the link-preview tags, with the cover's preview rendition.
 */
export type SharePageView =
  | { kind: 'password'; action: string; error?: string }
  | { kind: 'album'; album: AlbumView; preview?: { image: ThumbnailImage | null; baseUrl: string } };

export interface SharePage {
  title: string;
  body: SafeHtml;
  head: SafeHtml;
}

// The page never loads the files themselves: each load under the link would count a view.
function item(file: AlbumFile): SafeHtml {
  const preview = file.thumbnail
    ? html`<img src="${file.thumbnail.url}" width="${file.thumbnail.width}" height="${file.thumbnail.height}" alt="${file.filename}" loading="lazy">`
    : html`<span class="file">${file.filename}</span>`;
  return html`<li><a href="${file.url}">${preview}<span class="caption">${file.filename} · ${formatBytes(file.sizeBytes)}</span></a></li>`;
}

/**
 * Every page of a share link, in one place. The password page names nothing of what is shared (no
 * file name, no preview) and is a plain form: no script, the drop page's look.
 */
export function sharePage(view: SharePageView): SharePage {
  if (view.kind === 'password') {
    return {
      title: 'Password needed',
      head: html`<link rel="stylesheet" href="/assets/drop.css">`,
      body: html`<h1>This shared link needs a password</h1>
<form id="share-password-form" method="post" action="${view.action}">
  <label for="share-password">Password</label>
  <input type="password" name="password" id="share-password" autocomplete="current-password" required minlength="4" maxlength="128"${view.error ? html` aria-invalid="true" aria-describedby="share-password-error"` : ''}>
  ${view.error ? html`<p class="error" id="share-password-error" role="alert">${view.error}</p>` : ''}
  <button class="primary" type="submit">Open</button>
</form>`,
    };
  }
  const { album, preview } = view;
  const count = `${album.totalFiles} ${album.totalFiles === 1 ? 'file' : 'files'}`;
  const description = `${count} shared by ${album.owner}`;
  const pages =
    album.totalPages > 1
      ? html`<nav class="album-pages" aria-label="Pages">
${album.page > 1 ? html`<a rel="prev" href="${album.url}?page=${album.page - 1}">Newer</a>` : ''}
<span>Page ${album.page} of ${album.totalPages}</span>
${album.page < album.totalPages ? html`<a rel="next" href="${album.url}?page=${album.page + 1}">Older</a>` : ''}
</nav>`
      : html``;
  return {
    title: album.name,
    head: html`<link rel="stylesheet" href="/assets/album.css">
${preview ? embedTags({ title: album.name, description, url: album.url, image: preview.image }, preview.baseUrl) : ''}`,
    body: html`<div class="album">
<h1>${album.name}</h1>
<p class="album-meta">${description} · <a href="${album.downloadUrl}" download>Download all (zip)</a></p>
${album.files.length ? html`<ul class="album-grid">${album.files.map(item)}</ul>` : html`<p>Nothing here yet.</p>`}
${pages}
</div>`,
  };
}
