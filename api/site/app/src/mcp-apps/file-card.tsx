import type { FileView } from '../../../../../shared/contracts/file.contract.js';
import { CopyLinks } from '../files/copy-links.js';
import { Thumbnail } from '../files/thumbnail.js';
import '../files/files.css';
import { formatBytes, formatDate } from '../format.js';
import { type AppViewProps, startApp, Waiting } from './mcp-app.js';

// The file card: get_file's or view_file's result as the dashboard shows a file, with its links to copy.

type CardResult = FileView | { file: FileView; shown: boolean; note?: string };

function FileCard({ app, result }: AppViewProps) {
  if (!result || result.isError || !result.structuredContent) return <Waiting result={result} what="the file" />;
  const data = result.structuredContent as CardResult;
  const file = 'file' in data ? data.file : data;
  // view_file's own picture (a data: URL) when there is no preview rendition.
  const seen = result.content.find((c) => c.type === 'image');
  const picture = file.previewUrl ?? (seen ? `data:${seen.mimeType};base64,${seen.data}` : null);
  const name = file.originalName || file.filename;
  return (
    <main class="mcp-app">
      <article class="card file-card">
        {picture ? <img class="preview-image" src={picture} alt={`Preview of ${name}`} data-testid="file-preview" /> : <Thumbnail file={file} />}
        <div>
          <h1>{name}</h1>
          <dl class="facts">
            <dt>Stored as</dt>
            <dd>{file.filename}</dd>
            <dt>Size</dt>
            <dd>{formatBytes(file.size)}</dd>
            <dt>Type</dt>
            <dd>{file.mimeType}</dd>
            <dt>Uploaded</dt>
            <dd>{formatDate(file.uploadedAt)}</dd>
            {file.updatedAt && (
              <>
                <dt>Replaced</dt>
                <dd>{formatDate(file.updatedAt)}</dd>
              </>
            )}
            <dt>Expires</dt>
            <dd>{file.expiresAt ? formatDate(file.expiresAt) : 'Never'}</dd>
            <dt>Folder</dt>
            <dd>{file.folder?.name ?? 'Library root'}</dd>
            <dt>Visibility</dt>
            <dd>{file.isPrivate ? 'Private (the link is signed and expires)' : 'Public'}</dd>
          </dl>
          <p>
            <button type="button" onClick={() => void app.openLink({ url: file.url })}>
              Open the file
            </button>
          </p>
        </div>
      </article>
      <section class="card">
        <h2>Links</h2>
        <CopyLinks url={file.url} name={name} />
      </section>
    </main>
  );
}

startApp('file-card', FileCard);
