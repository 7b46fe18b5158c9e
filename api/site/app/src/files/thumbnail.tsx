import { useState } from 'preact/hooks';
import type { FileRecord } from '../types.js';
import { kindOf, typeLabel } from './file-facts.js';

/**
 * A file's thumbnail in a box of fixed aspect ratio (CSS), so nothing moves when the image
 * arrives; a type label (PNG, MP4, PDF) when there is no thumbnail or it fails to load.
 */
export function Thumbnail({ file, small = false }: { file: FileRecord; small?: boolean }) {
  const src = file.thumbnailUrl ?? null;
  // The URL that failed: a new one (after a privacy change or a replace) is tried again.
  const [failed, setFailed] = useState<string | null>(null);
  return (
    <div class={`thumb kind-${kindOf(file.mimeType)}${small ? ' thumb-small' : ''}`}>
      {src && failed !== src ? (
        <img src={src} alt="" width={256} height={256} loading="lazy" decoding="async" onError={() => setFailed(src)} />
      ) : (
        <span class="thumb-label" aria-hidden="true">
          {typeLabel(file)}
        </span>
      )}
    </div>
  );
}
