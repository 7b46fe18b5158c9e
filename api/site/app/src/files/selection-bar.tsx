import { FolderInput, Trash2, X } from 'lucide';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Icon } from '../../../views/icon.js';
import type { FileRecord, Folder } from '../types.js';
import { FolderOptions } from '../ui.js';
import { useFileCommands } from './file-commands.js';

interface Props {
  files: FileRecord[];
  selected: Set<string>;
  setSelected: (selected: Set<string>) => void;
  folders: Folder[];
}

/**
 * Select all that are loaded; once some are selected, move or delete them in one go (the outcome,
 * with Undo, in a toast). The keyboard comes back to Select all after each.
 */
export function SelectionBar({ files, selected, setSelected, folders }: Props) {
  const commands = useFileCommands();
  const [target, setTarget] = useState('root');
  const [busy, setBusy] = useState(false);
  const allRef = useRef<HTMLInputElement>(null);
  const count = selected.size;
  const allSelected = files.length > 0 && files.every((f) => selected.has(f.filename));
  useEffect(() => {
    if (allRef.current) allRef.current.indeterminate = count > 0 && !allSelected;
  }, [count, allSelected]);
  const chosen = () => files.filter((f) => selected.has(f.filename));

  const move = async () => {
    setBusy(true);
    const notMoved = await commands.move(chosen(), target, folders);
    setBusy(false);
    setSelected(new Set(notMoved));
    allRef.current?.focus();
  };

  const remove = () => {
    commands.remove(chosen());
    setSelected(new Set());
    allRef.current?.focus();
  };

  return (
    <div class={count ? 'selection-bar active' : 'selection-bar'} role="group" aria-label="Selected files">
      <label class="select-all">
        <input
          ref={allRef}
          type="checkbox"
          checked={allSelected}
          onChange={(event) => setSelected(event.currentTarget.checked ? new Set(files.map((f) => f.filename)) : new Set())}
        />
        <span>{count ? `${count} selected` : 'Select all'}</span>
      </label>
      {count > 0 && (
        <span class="selection-actions">
          <label for="move-target" class="sr-only">
            Move selected files to
          </label>
          <select id="move-target" value={target} disabled={busy} onChange={(event) => setTarget(event.currentTarget.value)}>
            <option value="root">Root library</option>
            <FolderOptions folders={folders} />
          </select>
          <button type="button" disabled={busy} onClick={() => void move()}>
            <Icon icon={FolderInput} />
            Move
          </button>
          <button type="button" class="danger" disabled={busy} onClick={remove}>
            <Icon icon={Trash2} />
            Delete
          </button>
          <button
            type="button"
            class="ghost"
            disabled={busy}
            onClick={() => {
              setSelected(new Set());
              allRef.current?.focus();
            }}
          >
            <Icon icon={X} />
            Clear
          </button>
        </span>
      )}
    </div>
  );
}
