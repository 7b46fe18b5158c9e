import { useEffect, useRef } from 'preact/hooks';
import { formatBytes, formatDate } from '../format.js';
import { filePagePath } from '../files/file-facts.js';
import { onLinkClick } from '../router.js';
import { CopyButton } from '../ui.js';
import type { DropLink } from '../types.js';

/** A link as the page shows it: the API's, or one cancelled here (the API lists those no more). */
export type ShownDropLink = DropLink & { cancelled?: boolean };

type ShownStatus = 'active' | 'received' | 'expired' | 'cancelled';

const STATUS_WORDS: Record<ShownStatus, string> = {
  active: 'Waiting for a file',
  received: 'File received',
  expired: 'Expired',
  cancelled: 'Cancelled',
};

/** What the link is now: a pending link past its time reads as expired without asking the API again. */
function statusOf(link: ShownDropLink): ShownStatus {
  if (link.cancelled) return 'cancelled';
  if (link.status === 'received') return 'received';
  if (link.status === 'expired' || Date.parse(link.expiresAt) <= Date.now()) return 'expired';
  return 'active';
}

/** One drop link: its state in words, the link to copy while it is open, the file it brought. */
export function DropLinkItem({ link, folderName, focusCopy, onCancel }: { link: ShownDropLink; folderName: string; focusCopy: boolean; onCancel: () => void }) {
  const status = statusOf(link);
  const urlField = useRef<HTMLInputElement>(null);
  const titleId = `drop-${link.id}`;
  // A new link: put the keyboard on it, ready to copy.
  useEffect(() => {
    if (focusCopy) urlField.current?.focus();
  }, [focusCopy]);

  return (
    <li class={`card drop drop-${status}`}>
      <div class="drop-head">
        <h3 id={titleId}>{link.note || 'Drop link without a note'}</h3>
        <span class={`pill pill-${status}`}>{STATUS_WORDS[status]}</span>
      </div>
      <p class="muted">
        Into {folderName}
        {link.maxSizeBytes ? ` · files up to ${formatBytes(link.maxSizeBytes)}` : ''} · made {formatDate(link.createdAt)}
        {status === 'active' && ` · open until ${formatDate(link.expiresAt)}`}
        {status === 'expired' && ` · expired ${formatDate(link.expiresAt)}`}
        {status === 'received' && ` · received ${formatDate(link.receivedAt)}`}
      </p>
      {status === 'active' && (
        <div class="row link-row">
          <label class="sr-only" for={`${titleId}-url`}>
            Drop link
          </label>
          <input id={`${titleId}-url`} ref={urlField} class="wide" readOnly value={link.url} onFocus={(e) => e.currentTarget.select()} />
          <CopyButton text={link.url} what="drop link" />
        </div>
      )}
      {status === 'received' && link.file && (
        <p>
          Received:{' '}
          <a href={filePagePath(link.file.filename)} onClick={onLinkClick}>
            {link.file.originalName || link.file.filename}
          </a>{' '}
          ({formatBytes(link.file.size)})
        </p>
      )}
      {status === 'received' && !link.file && <p class="muted">The file it brought has since been deleted.</p>}
      {status !== 'cancelled' && (
        <div class="row">
          <button type="button" class="danger" aria-describedby={titleId} onClick={onCancel}>
            {status === 'active' ? 'Cancel link' : 'Remove from list'}
          </button>
        </div>
      )}
    </li>
  );
}
