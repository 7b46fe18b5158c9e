import { useEffect, useId, useState } from 'preact/hooks';
import { RENDITION_WIDTHS, type RequestedFormat } from '../../../../../shared/services/media/renditions/rendition-params.js';
import { useToasts } from '../toasts/toasts.js';
import type { FileRecord } from '../types.js';
import { SelectField } from '../ui.js';
import { CopyLinks } from './copy-links.js';
import { sizedLink } from './file-api.js';
import { isResizable, shownName } from './file-facts.js';

type Width = (typeof RENDITION_WIDTHS)[number];

const WIDTHS = RENDITION_WIDTHS.map((w) => ({ value: w, label: `${w} px` }));
// Auto first: the server answers each browser with AVIF or WebP, whichever it takes.
const FORMAT_LABELS = { auto: 'Auto', webp: 'WebP', avif: 'AVIF', jpeg: 'JPEG', png: 'PNG' } satisfies Record<RequestedFormat, string>;
const FORMATS = Object.entries(FORMAT_LABELS).map(([value, label]) => ({ value: value as RequestedFormat, label }));

/** A file's links to copy; an image's may point at a sized copy instead of the original. */
export function FileLinks({ file }: { file: FileRecord }) {
  return isResizable(file.mimeType) ? <SizedLinks file={file} /> : <CopyLinks url={file.url} name={shownName(file)} />;
}

/**
 * The original's links until "Sized link" is chosen, then the link to the image at the chosen width
 * and format. The server hands that link out, since a private file's must be signed with its parameters.
 */
function SizedLinks({ file }: { file: FileRecord }) {
  const id = useId();
  const toasts = useToasts();
  const [sized, setSized] = useState(false);
  const [width, setWidth] = useState<Width>(640);
  const [format, setFormat] = useState<RequestedFormat>('auto');
  const [link, setLink] = useState<{ for: string; url: string }>();
  // The file's URL is in it too: the signature changes with privacy and the name with a rename.
  const wanted = sized ? `${file.filename} ${file.url} ${width} ${format}` : '';
  const { filename } = file;

  useEffect(() => {
    if (!wanted) return;
    const controller = new AbortController();
    sizedLink(filename, { w: width, format }, controller.signal).then(
      (url) => setLink({ for: wanted, url }),
      (err: Error) => {
        if (err.name === 'AbortError') return;
        toasts.show({ tone: 'error', message: `No sized link: ${err.message}` });
        setSized(false);
      },
    );
    return () => controller.abort();
  }, [wanted, filename, width, format, toasts]);

  // Until the asked-for link arrives the rows keep the last one, greyed out, so nothing stale is copied.
  const waiting = sized && link?.for !== wanted;
  return (
    <div class="file-links">
      <div class="sized-choice">
        <span class="sized-check">
          <input id={`${id}-sized`} type="checkbox" checked={sized} onChange={(event) => setSized(event.currentTarget.checked)} />
          <label for={`${id}-sized`}>Sized link</label>
        </span>
        {sized && (
          <>
            <SelectField label="Width" value={width} choices={WIDTHS} onChange={setWidth} />
            <SelectField label="Format" value={format} choices={FORMATS} onChange={setFormat} />
          </>
        )}
      </div>
      <fieldset disabled={waiting} aria-busy={waiting}>
        <CopyLinks url={sized && link ? link.url : file.url} name={shownName(file)} />
      </fieldset>
    </div>
  );
}
