import { copyText, formatBytes, formatDate } from '../format.js';
import { onLinkClick } from '../router.js';
import type { FileRecord } from '../types.js';
import { filePagePath } from './file-facts.js';
import { Thumbnail } from './thumbnail.js';

// The files as a grid of tiles or as a table: the same selection checkbox, link, facts and buttons.

interface FileViewProps {
  files: FileRecord[];
  selected: Set<string>;
  onToggle: (filename: string, on: boolean) => void;
  onActions: (file: FileRecord) => void;
  onStatus: (message: string) => void;
}

function SelectBox({ file, selected, onToggle }: { file: FileRecord } & Pick<FileViewProps, 'selected' | 'onToggle'>) {
  return (
    <input
      type="checkbox"
      class="select-file"
      aria-label={`Select ${file.filename}`}
      checked={selected.has(file.filename)}
      onChange={(event) => onToggle(file.filename, event.currentTarget.checked)}
    />
  );
}

function Buttons({ file, onActions, onStatus }: { file: FileRecord } & Pick<FileViewProps, 'onActions' | 'onStatus'>) {
  return (
    <span class="file-buttons">
      <button type="button" class="small" onClick={async () => onStatus((await copyText(file.url)) ? `Link to ${file.filename} copied.` : 'Copying is not allowed here.')}>
        Copy link<span class="sr-only"> to {file.filename}</span>
      </button>
      <button type="button" class="small" onClick={() => onActions(file)}>
        Actions<span class="sr-only"> for {file.filename}</span>
      </button>
    </span>
  );
}

function Tags({ file }: { file: FileRecord }) {
  return (
    <>
      {file.isPrivate && <span class="tag">Private</span>}
      {file.expiresAt && <span class="tag">Expires {formatDate(file.expiresAt)}</span>}
      {(file.moderationState === 'blocked' || file.moderationState === 'flagged') && <span class="tag warn">{file.moderationState === 'blocked' ? 'Blocked' : 'In review'}</span>}
    </>
  );
}

export function FileGrid({ files, selected, onToggle, onActions, onStatus }: FileViewProps) {
  return (
    <ul class="file-grid" aria-label="Files">
      {files.map((file) => (
        <li key={file.filename} class={selected.has(file.filename) ? 'tile selected' : 'tile'} data-filename={file.filename}>
          <a class="tile-link" href={filePagePath(file.filename)} onClick={onLinkClick}>
            <Thumbnail file={file} />
            <span class="tile-name" title={file.filename}>
              {file.filename}
            </span>
          </a>
          <SelectBox file={file} selected={selected} onToggle={onToggle} />
          <span class="tile-facts muted">
            {formatBytes(file.size)} · {formatDate(file.timestamp)}
          </span>
          <span class="tile-tags">
            <Tags file={file} />
          </span>
          <Buttons file={file} onActions={onActions} onStatus={onStatus} />
        </li>
      ))}
    </ul>
  );
}

export function FileTable({ files, selected, onToggle, onActions, onStatus }: FileViewProps) {
  return (
    <div class="table-wrap">
      <table class="file-table">
        <caption class="sr-only">Files</caption>
        <thead>
          <tr>
            <th scope="col">
              <span class="sr-only">Selected</span>
            </th>
            <th scope="col">
              <span class="sr-only">Preview</span>
            </th>
            <th scope="col">Name</th>
            <th scope="col" class="wide-only">
              Size
            </th>
            <th scope="col" class="wide-only">
              Uploaded
            </th>
            <th scope="col" class="wide-only">
              Notes
            </th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {files.map((file) => (
            <tr key={file.filename} class={selected.has(file.filename) ? 'selected' : undefined} data-filename={file.filename}>
              <td>
                <SelectBox file={file} selected={selected} onToggle={onToggle} />
              </td>
              <td>
                <Thumbnail file={file} small />
              </td>
              <td class="name-cell">
                <a href={filePagePath(file.filename)} onClick={onLinkClick}>
                  {file.filename}
                </a>
                {file.originalName && file.originalName !== file.filename && <span class="muted"> {file.originalName}</span>}
              </td>
              <td class="wide-only">{formatBytes(file.size)}</td>
              <td class="wide-only">{formatDate(file.timestamp)}</td>
              <td class="wide-only">
                <Tags file={file} />
              </td>
              <td>
                <Buttons file={file} onActions={onActions} onStatus={onStatus} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
