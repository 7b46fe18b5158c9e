import { ArrowLeft, ExternalLink } from 'lucide';
import { useEffect, useState } from 'preact/hooks';
import { Icon } from '../../../views/icon.js';
import { formatBytes, formatDate, webUrl } from '../format.js';
import { navigate, onLinkClick } from '../router.js';
import type { FileRecord } from '../types.js';
import { ShareLinksPanel } from '../share/share-links-panel.js';
import { Status, useLoad } from '../ui.js';
import { findFile } from './file-api.js';
import { FileActions, type FileChange } from './file-actions.js';
import { expiryText, filePagePath, kindOf, moderationText, sameOriginUrl, shownName, sourceText } from './file-facts.js';
import { onLibraryChange } from './library-changes.js';
import { Thumbnail } from './thumbnail.js';
import './files.css';

/** The file itself, as large as fits: its preview image, the image, a video or audio player. */
function Preview({ file, username }: { file: FileRecord; username: string }) {
  const [failed, setFailed] = useState(false);
  const kind = kindOf(file.mimeType);
  if (kind === 'video') {
    const poster = file.previewUrl ?? undefined;
    return <video src={sameOriginUrl(file, username)} poster={poster} controls preload="metadata" width={1280} height={800} aria-label={`Video ${shownName(file)}`} />;
  }
  if (kind === 'audio') return <audio src={sameOriginUrl(file, username)} controls preload="metadata" aria-label={`Audio ${shownName(file)}`} />;
  const image = file.previewUrl ?? (kind === 'image' ? file.url : null);
  // An image the browser cannot show gets the type label instead of a broken-image sign.
  if (image && !failed) return <img src={image} alt={`Preview of ${shownName(file)}`} width={1280} height={800} decoding="async" onError={() => setFailed(true)} />;
  return <Thumbnail file={file} />;
}

/**
 * One file at /dashboard/files/:filename: its preview, every fact about it (its stored name among
 * them), and what can be done to it. Named by its original name, as in the grid.
 */
export function FilePage({ filename }: { filename: string }) {
  const { data, error, setData } = useLoad((signal) => findFile(filename, signal), filename);
  const file = data?.file;
  const folders = data?.data.folders ?? [];
  // A change made elsewhere (a move's Undo from a toast) shows here too.
  useEffect(
    () =>
      onLibraryChange((changes) => {
        for (const change of changes) if (change.kind === 'saved' && change.file.filename === filename) setData((d) => d && { ...d, file: change.file });
      }),
    [filename, setData],
  );
  const back = (
    <a href="/dashboard" onClick={onLinkClick} class="back">
      <Icon icon={ArrowLeft} />
      All files
    </a>
  );

  if (error || (data && !file)) {
    return (
      <article class="file-page">
        {back}
        <h1>{filename}</h1>
        <Status error={error ?? 'There is no such file in your library: it was deleted, renamed, or has expired.'} />
      </article>
    );
  }
  if (!data || !file) {
    return (
      <article class="file-page" aria-busy="true">
        {back}
        <h1>{filename}</h1>
        <p class="muted">Loading…</p>
      </article>
    );
  }

  const changed = (change: FileChange) => {
    if (change.kind === 'deleted') return navigate('/dashboard');
    setData({ ...data, file: change.file });
    if (change.file.filename !== filename) navigate(filePagePath(change.file.filename), true);
  };
  const folder = folders.find((f) => f.id === file.folderId);

  return (
    <article class="file-page">
      {back}
      <h1>{shownName(file)}</h1>
      <div class="file-layout">
        <div class="preview">
          <Preview key={`${file.url}#${file.updatedAt ?? ''}`} file={file} username={data.data.user.username} />
        </div>
        <div class="file-side">
          <dl class="facts">
            <dt>Stored name</dt>
            <dd>
              <code>{file.filename}</code>
            </dd>
            <dt>Size</dt>
            <dd>{formatBytes(file.size)}</dd>
            <dt>Type</dt>
            <dd>{file.mimeType || '—'}</dd>
            <dt>Uploaded</dt>
            <dd>{formatDate(file.timestamp)}</dd>
            <dt>Updated</dt>
            <dd>{file.updatedAt ? formatDate(file.updatedAt) : 'Never replaced'}</dd>
            <dt>Expires</dt>
            <dd>{expiryText(file)}</dd>
            <dt>Moderation</dt>
            <dd>{moderationText(file.moderationState)}</dd>
            <dt>Source</dt>
            <dd>{sourceText(file.source)}</dd>
            <dt>Private</dt>
            <dd>{file.isPrivate ? 'Yes: only signed links open it' : 'No'}</dd>
            <dt>Folder</dt>
            <dd>{folder?.name ?? 'Root library'}</dd>
          </dl>
          <a href={webUrl(file.url)?.href} target="_blank" rel="noopener" class="button open-file">
            <Icon icon={ExternalLink} />
            Open the file
          </a>
        </div>
      </div>
      <section class="card" aria-labelledby="file-actions-heading">
        <h2 id="file-actions-heading">Share and change</h2>
        <FileActions file={file} folders={folders} onChange={changed} />
      </section>
      <section class="card">
        <ShareLinksPanel target={{ filename: file.filename }} name={`the file ${shownName(file)}`} />
      </section>
    </article>
  );
}
