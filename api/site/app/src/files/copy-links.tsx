import { useId } from 'preact/hooks';
import { LINK_FORMATS, linkAs } from '../format.js';
import { CopyButton } from '../ui.js';
import './copy-links.css';

/** A file's link as URL, Markdown, HTML and BBCode: each shown in full, each with its Copy button. */
export function CopyLinks({ url, name }: { url: string; name: string }) {
  const id = useId();
  return (
    <div class="copy-links">
      {LINK_FORMATS.map((format) => {
        const inputId = `${id}-${format.value}`;
        const text = linkAs(format.value, url, name);
        return (
          <div class="copy-row" key={format.value}>
            <label for={inputId}>{format.label}</label>
            <input id={inputId} readOnly value={text} data-format={format.value} onFocus={(event) => event.currentTarget.select()} />
            <span class="copy-cell">
              <CopyButton text={text} what={format.label} />
            </span>
          </div>
        );
      })}
    </div>
  );
}
