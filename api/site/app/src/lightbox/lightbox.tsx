import { ChevronLeft, ChevronRight, ExternalLink, File, X } from 'lucide';
import { useEffect, useRef } from 'preact/hooks';
import { Icon } from '../../../views/icon.js';
import './lightbox.css';

export interface LightboxItem {
  /** what the lightbox loads: the file, or a rendition of it */
  src: string;
  alt: string;
  name: string;
  /** the file itself, behind "Open" */
  href: string;
  kind: 'image' | 'video' | 'other';
  width?: number;
  height?: number;
}

/**
 * One file at a time over the whole window: Left and Right move (wrapping), Escape closes. A modal
 * <dialog>, so the page behind is inert and Tab stays inside; closing gives focus back to what had it.
 */
export function Lightbox({ items, index, onIndexChange, onClose }: { items: LightboxItem[]; index: number; onIndexChange: (i: number) => void; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const item = items[index];
  const many = items.length > 1;
  const go = (step: number) => onIndexChange((index + step + items.length) % items.length);

  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const element = dialog.current!;
    element.showModal();
    element.querySelector<HTMLElement>('.lightbox-close')?.focus();
    return () => {
      if (element.open) element.close();
      opener?.focus();
    };
  }, []);

  const onKeyDown = (event: KeyboardEvent) => {
    // A video's own controls take the arrows while it has the focus.
    if (event.target instanceof HTMLVideoElement && event.key.startsWith('Arrow')) return;
    if (event.key === 'Escape') {
      event.preventDefault();
      onClose();
    } else if (many && event.key === 'ArrowRight') {
      event.preventDefault();
      go(1);
    } else if (many && event.key === 'ArrowLeft') {
      event.preventDefault();
      go(-1);
    } else if (event.key === 'Tab') {
      keepTabInside(event, dialog.current!);
    }
  };

  if (!item) return null;
  return (
    <dialog
      ref={dialog}
      class="lightbox"
      aria-labelledby="lightbox-title"
      onKeyDown={onKeyDown}
      // Escape (or the browser's own close) ends it through the owner, which unmounts it.
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <div class="lightbox-bar">
        <p class="lightbox-title" id="lightbox-title" aria-live="polite">
          <span class="lightbox-name">{item.name}</span>
          {many && (
            <span class="lightbox-count">
              {index + 1} of {items.length}
            </span>
          )}
        </p>
        <a class="button ghost lightbox-open" href={item.href}>
          <Icon icon={ExternalLink} />
          <span>Open</span>
        </a>
        <button type="button" class="ghost icon-only lightbox-close" aria-label="Close" onClick={onClose}>
          <Icon icon={X} />
        </button>
      </div>
      <div
        class="lightbox-stage"
        onClick={(event) => {
          if (event.target === event.currentTarget) onClose();
        }}
      >
        <Media item={item} />
        {many && (
          <>
            <button type="button" class="lightbox-nav lightbox-prev" aria-label="Previous" onClick={() => go(-1)}>
              <Icon icon={ChevronLeft} size={24} />
            </button>
            <button type="button" class="lightbox-nav lightbox-next" aria-label="Next" onClick={() => go(1)}>
              <Icon icon={ChevronRight} size={24} />
            </button>
          </>
        )}
      </div>
    </dialog>
  );
}

function Media({ item }: { item: LightboxItem }) {
  // Keyed by source, so the previous file never shows while the next one loads.
  if (item.kind === 'image' && item.src) return <img key={item.src} class="lightbox-media" src={item.src} alt={item.alt} width={item.width} height={item.height} />;
  if (item.kind === 'video' && item.src) return <video key={item.src} class="lightbox-media" src={item.src} controls preload="metadata" aria-label={item.alt} />;
  return (
    <div class="lightbox-other">
      <Icon icon={File} size={48} />
      <p>No preview of {item.name}.</p>
      <a class="button primary" href={item.href}>
        Open the file
      </a>
    </div>
  );
}

/** Tab from the last control goes to the first, Shift+Tab from the first to the last. */
function keepTabInside(event: KeyboardEvent, root: HTMLElement) {
  const focusable = [...root.querySelectorAll<HTMLElement>('a[href], button:not(:disabled), video[controls]')];
  const first = focusable[0];
  const last = focusable[focusable.length - 1];
  if (!first || !last) return;
  if (event.shiftKey && document.activeElement === first) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && document.activeElement === last) {
    event.preventDefault();
    first.focus();
  }
}
