import { Link, SlidersHorizontal } from 'lucide';
import { Icon } from '../../../views/icon.js';
import { formatBytes, formatDate, formatDay } from '../format.js';
import { onLinkClick } from '../router.js';
import type { FileRecord } from '../types.js';
import { filePagePath, shownName } from './file-facts.js';
import { Thumbnail } from './thumbnail.js';

// The files as a grid of tiles or as a table: the same selection checkbox, name, facts and buttons.
// Each is named by its original name; the stored one is on hover and on the file's page.

interface FileViewProps {
  files: FileRecord[];
  selected: Set<string>;
  onToggle: (filename: string, on: boolean) => void;
  onActions: (file: FileRecord) => void;
  onCopyLink: (file: FileRecord) => void;
  /** opens the file in the lightbox */
  onView: (file: FileRecord) => void;
}

function SelectBox({ file, selected, onToggle }: { file: FileRecord } & Pick<FileViewProps, 'selected' | 'onToggle'>) {
  return (
    <input
      type="checkbox"
      class="select-file"
      aria-label={`Select ${shownName(file)}`}
      checked={selected.has(file.filename)}
      onChange={(event) => onToggle(file.filename, event.currentTarget.checked)}
    />
  );
}

function Buttons({ file, onActions, onCopyLink }: { file: FileRecord } & Pick<FileViewProps, 'onActions' | 'onCopyLink'>) {
  return (
    <span class="file-buttons">
      <button type="button" class="ghost small icon-only" title="Copy link" onClick={() => onCopyLink(file)}>
        <Icon icon={Link} />
        <span class="sr-only">Copy link to {shownName(file)}</span>
      </button>
      <button type="button" class="ghost small icon-only" title="Share, rename, move, delete…" onClick={() => onActions(file)}>
        <Icon icon={SlidersHorizontal} />
        <span class="sr-only">Actions for {shownName(file)}</span>
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

export function FileGrid({ files, selected, onToggle, onActions, onCopyLink, onView }: FileViewProps) {
  return (
    <ul class="file-grid" aria-label="Files">
      {files.map((file) => (
        <li key={file.filename} class={selected.has(file.filename) ? 'tile selected' : 'tile'} data-filename={file.filename}>
          <button type="button" class="tile-preview" aria-label={`View ${shownName(file)}`} onClick={() => onView(file)}>
            <Thumbnail file={file} />
          </button>
          <SelectBox file={file} selected={selected} onToggle={onToggle} />
          <a class="tile-name" href={filePagePath(file.filename)} onClick={onLinkClick} title={file.filename}>
            {shownName(file)}
          </a>
          <span class="tile-facts muted" title={`Uploaded ${formatDate(file.timestamp)}`}>
            {formatBytes(file.size)} · {formatDay(file.timestamp)}
          </span>
          <span class="tile-foot">
            <span class="tile-tags">
              <Tags file={file} />
            </span>
            <Buttons file={file} onActions={onActions} onCopyLink={onCopyLink} />
          </span>
        </li>
      ))}
    </ul>
  );
}

export function FileTable({ files, selected, onToggle, onActions, onCopyLink }: Omit<FileViewProps, 'onView'>) {
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
                <a href={filePagePath(file.filename)} onClick={onLinkClick} title={file.filename}>
                  {shownName(file)}
                </a>
                <span class="stored-name muted">{file.filename}</span>
              </td>
              <td class="wide-only">{formatBytes(file.size)}</td>
              <td class="wide-only">{formatDate(file.timestamp)}</td>
              <td class="wide-only">
                <Tags file={file} />
              </td>
              <td>
                <Buttons file={file} onActions={onActions} onCopyLink={onCopyLink} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
