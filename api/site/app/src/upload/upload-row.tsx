import { CopyLinks } from '../files/copy-links.js';
import { formatBytes, webUrl } from '../format.js';
import { CopyButton } from '../ui.js';
import type { UploadItem, UploadQueue } from './upload-queue.js';

function stateText(item: UploadItem): string {
  const percent = item.file.size ? Math.floor((item.loaded / item.file.size) * 100) : 100;
  switch (item.state) {
    case 'queued':
      return 'Waiting';
    case 'uploading':
      return percent >= 100 ? 'Finishing…' : `Uploading, ${percent}%`;
    case 'paused':
      return `Paused at ${percent}%`;
    case 'done':
      return 'Uploaded';
    case 'failed':
      return 'Failed';
    default:
      return 'Cancelled';
  }
}

/** One file of the queue: its progress, its buttons, and once uploaded its link in every format. */
export function UploadRow({ item, queue, latest }: { item: UploadItem; queue: UploadQueue; latest: boolean }) {
  const name = item.file.name;
  const active = item.state === 'uploading' || item.state === 'paused';
  return (
    <li class={`upload-item is-${item.state}`} data-name={name}>
      <div class="upload-line">
        <span class="upload-name">{name}</span>
        <span class="muted">{formatBytes(item.file.size)}</span>
        <span class="upload-state">{stateText(item)}</span>
        <div class="upload-buttons">
          {item.resumable && active && (
            <button type="button" class="small pause" onClick={() => (item.state === 'paused' ? queue.resume(item.id) : queue.pause(item.id))}>
              {item.state === 'paused' ? 'Resume' : 'Pause'}
              <span class="sr-only"> {name}</span>
            </button>
          )}
          {(active || item.state === 'queued') && (
            <button type="button" class="small cancel" onClick={() => queue.cancel(item.id)}>
              Cancel<span class="sr-only"> {name}</span>
            </button>
          )}
          {(item.state === 'cancelled' || (item.state === 'failed' && item.retryable)) && (
            <button type="button" class="small retry" onClick={() => queue.retry(item.id)}>
              Retry<span class="sr-only"> {name}</span>
            </button>
          )}
          {!active && item.state !== 'queued' && (
            <button type="button" class="small dismiss" onClick={() => queue.dismiss(item.id)}>
              Remove<span class="sr-only"> {name} from the list</span>
            </button>
          )}
        </div>
      </div>
      <progress max={item.file.size || 1} value={item.state === 'done' ? item.file.size || 1 : item.loaded} aria-label={`Upload of ${name}`} />
      {item.error && (
        <p class="status error" role="alert">
          {item.error}
        </p>
      )}
      {item.result && (
        <div class="upload-result">
          <a href={webUrl(item.result.url)?.href} id={latest ? 'result-url' : undefined} class="result-url" target="_blank" rel="noopener">
            {item.result.url}
          </a>
          <CopyButton text={item.result.url} what={`link to ${name}`} />
          {item.note && <p class="status error">{item.note}</p>}
          <details>
            <summary>Markdown, HTML and BBCode</summary>
            <CopyLinks url={item.result.url} name={item.result.originalFilename || item.result.filename} />
          </details>
        </div>
      )}
    </li>
  );
}
