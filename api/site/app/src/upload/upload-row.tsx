import { CircleAlert, CircleCheck, Pause, Play, RotateCcw, X } from 'lucide';
import { Icon } from '../../../views/icon.js';
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

/** The link of a finished upload, copied in one press: `id` marks the latest one. */
export function ResultLink({ item, latest }: { item: UploadItem; latest: boolean }) {
  if (!item.result) return null;
  return (
    <span class="result-link">
      <a href={webUrl(item.result.url)?.href} id={latest ? 'result-url' : undefined} class="result-url" target="_blank" rel="noopener">
        {item.result.url}
      </a>
      <CopyButton text={item.result.url} what={`link to ${item.file.name}`} />
    </span>
  );
}

/**
 * One file of the queue: its progress while it goes, its buttons, once uploaded its link in every
 * format; a failed one in red with the reason, and Retry where trying again can help.
 */
export function UploadRow({ item, queue, latest }: { item: UploadItem; queue: UploadQueue; latest: boolean }) {
  const name = item.file.name;
  const active = item.state === 'uploading' || item.state === 'paused';
  return (
    <li class={`upload-item is-${item.state}`} data-name={name}>
      <div class="upload-line">
        {item.state === 'failed' && <Icon icon={CircleAlert} />}
        {item.state === 'done' && <Icon icon={CircleCheck} />}
        <span class="upload-name">{name}</span>
        <span class="muted">{formatBytes(item.file.size)}</span>
        <span class="upload-state">{stateText(item)}</span>
        <div class="upload-buttons">
          {item.resumable && active && (
            <button type="button" class="small pause" onClick={() => (item.state === 'paused' ? queue.resume(item.id) : queue.pause(item.id))}>
              <Icon icon={item.state === 'paused' ? Play : Pause} size={16} />
              {item.state === 'paused' ? 'Resume' : 'Pause'}
              <span class="sr-only"> {name}</span>
            </button>
          )}
          {(active || item.state === 'queued') && (
            <button type="button" class="small cancel" onClick={() => queue.cancel(item.id)}>
              <Icon icon={X} size={16} />
              Cancel<span class="sr-only"> {name}</span>
            </button>
          )}
          {(item.state === 'cancelled' || (item.state === 'failed' && item.retryable)) && (
            <button type="button" class="small retry" onClick={() => queue.retry(item.id)}>
              <Icon icon={RotateCcw} size={16} />
              Retry<span class="sr-only"> {name}</span>
            </button>
          )}
          {!active && item.state !== 'queued' && (
            <button type="button" class="small ghost dismiss" onClick={() => queue.dismiss(item.id)}>
              Remove<span class="sr-only"> {name} from the list</span>
            </button>
          )}
        </div>
      </div>
      {(active || item.state === 'queued') && <progress max={item.file.size || 1} value={item.loaded} aria-label={`Upload of ${name}`} />}
      {item.error && (
        <p class="status error" role="alert">
          {item.error}
        </p>
      )}
      {item.result && (
        <div class="upload-result">
          <ResultLink item={item} latest={latest} />
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
