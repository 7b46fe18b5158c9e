import { useEffect, useRef, useState } from 'preact/hooks';
import { plural } from '../format.js';
import type { FileRecord, Folder } from '../types.js';
import { ConfirmDialog, FolderOptions } from '../ui.js';
import { deleteFiles, moveFiles } from './file-api.js';

export interface SelectionResult {
  message: string;
  error?: boolean;
  deleted?: string[];
  moved?: { filenames: string[]; folderId: string | null };
}

interface Props {
  files: FileRecord[];
  selected: Set<string>;
  setSelected: (selected: Set<string>) => void;
  folders: Folder[];
  /** after a move or delete: what happened, in words, whether it went wrong somewhere, and to which files */
  onDone: (result: SelectionResult) => void;
}

const list = (names: { filename: string; error: string }[]) => names.map((n) => `${n.filename} (${n.error})`).join(', ');

/** Select all that are loaded, then move or delete the selected files in one go. */
export function SelectionBar({ files, selected, setSelected, folders, onDone }: Props) {
  const [target, setTarget] = useState('root');
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const allRef = useRef<HTMLInputElement>(null);
  const count = selected.size;
  const allSelected = files.length > 0 && files.every((f) => selected.has(f.filename));
  useEffect(() => {
    if (allRef.current) allRef.current.indeterminate = count > 0 && !allSelected;
  }, [count, allSelected]);

  const move = async () => {
    setBusy(true);
    try {
      const { moved, errors } = await moveFiles([...selected], target);
      const where = folders.find((f) => f.id === target)?.name ?? 'the root library';
      onDone({
        message: `Moved ${plural(moved.length, 'file')} to ${where}.${errors.length ? ` Not moved: ${list(errors)}.` : ''}`,
        error: errors.length > 0,
        moved: { filenames: moved, folderId: target === 'root' ? null : target },
      });
      setSelected(new Set(errors.map((e) => e.filename)));
    } catch (err) {
      onDone({ message: (err as Error).message, error: true });
    } finally {
      setBusy(false);
    }
  };

  // Never refuses as a whole: what could not be deleted is named in the outcome.
  const remove = async () => {
    setBusy(true);
    const { deleted, failed } = await deleteFiles([...selected]);
    setBusy(false);
    setSelected(new Set(failed.map((f) => f.filename)));
    onDone({
      message: `Deleted ${plural(deleted.length, 'file')}.${failed.length ? ` Not deleted: ${list(failed)}.` : ''}`,
      error: failed.length > 0,
      deleted,
    });
  };

  return (
    <div class="selection-bar" role="group" aria-label="Selected files">
      <label class="select-all">
        <input
          ref={allRef}
          type="checkbox"
          checked={allSelected}
          disabled={files.length === 0}
          onChange={(event) => setSelected(event.currentTarget.checked ? new Set(files.map((f) => f.filename)) : new Set())}
        />
        <span>{count ? `${count} selected` : 'Select all'}</span>
      </label>
      <label for="move-target" class="sr-only">
        Move selected files to
      </label>
      <select id="move-target" value={target} disabled={count === 0 || busy} onChange={(event) => setTarget(event.currentTarget.value)}>
        <option value="root">Root library</option>
        <FolderOptions folders={folders} />
      </select>
      <button type="button" disabled={count === 0 || busy} onClick={move}>
        Move
      </button>
      <button type="button" class="danger" disabled={count === 0 || busy} onClick={() => setConfirming(true)}>
        Delete
      </button>
      {count > 0 && (
        <button type="button" disabled={busy} onClick={() => setSelected(new Set())}>
          Clear
        </button>
      )}
      {confirming && (
        <ConfirmDialog title={`Delete ${plural(count, 'file')}?`} confirmLabel="Delete" danger onConfirm={remove} onClose={() => setConfirming(false)}>
          <p>The selected files and their links go for good. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
