import { FilePen, FileUp, FolderInput, Trash2 } from 'lucide';
import { useEffect, useId, useState } from 'preact/hooks';
import { Icon } from '../../../views/icon.js';
import { FilePicker } from '../file-picker.js';
import type { FileRecord, Folder } from '../types.js';
import { FolderOptions, Status, useAction } from '../ui.js';
import { findFile, renameFile, replaceFile, setPrivate } from './file-api.js';
import { useFileCommands } from './file-commands.js';
import { FileLinks } from './file-links.js';
import { announceChanges } from './library-changes.js';

type Action = 'rename' | 'replace' | 'move' | 'privacy';

export type FileChange = { kind: 'updated'; oldFilename: string; file: FileRecord } | { kind: 'deleted'; filename: string };

/**
 * Everything one can do to a file: copy its link in each format (an image's sized too), rename,
 * replace, move, make it private or public, delete. Used by the file page and by the grid's Actions
 * dialog; each outcome is a toast, and the rest of the app hears of the change (library-changes).
 */
export function FileActions({ file, folders, onChange }: { file: FileRecord; folders: Folder[]; onChange: (change: FileChange) => void }) {
  const id = useId();
  const action = useAction<Action>();
  const commands = useFileCommands();
  const busy = action.busy;
  const [newName, setNewName] = useState(file.filename);
  const [replacement, setReplacement] = useState<File | undefined>();
  const [target, setTarget] = useState(file.folderId ?? 'root');
  // The box shows the choice at once; it goes back if the change is refused.
  const [isPrivate, setIsPrivate] = useState(file.isPrivate);
  useEffect(() => setIsPrivate(file.isPrivate), [file.isPrivate]);
  useEffect(() => setTarget(file.folderId ?? 'root'), [file.folderId]);

  /** Runs one change, then reads the file again: its URL, thumbnail and dates may all have moved. */
  const run = (what: Action, change: () => Promise<{ filename: string; patch: Partial<FileRecord>; done: string }>) =>
    action.run(what, async () => {
      const { filename, patch, done } = await change();
      const fresh = (await findFile(filename).then((found) => found.file, () => undefined)) ?? { ...file, ...patch, filename };
      announceChanges([{ kind: 'saved', file: fresh, oldFilename: file.filename }]);
      onChange({ kind: 'updated', oldFilename: file.filename, file: fresh });
      return done;
    });

  const rename = (event: Event) => {
    event.preventDefault();
    const name = newName.trim();
    if (!name || name === file.filename) return;
    void run('rename', async () => {
      // The API names its field; a person typed "the new name".
      const result = await renameFile(file.filename, name).catch((err: Error) => {
        throw new Error(err.message.replace(/^newFilename\b/, 'The new name'));
      });
      return { filename: result.newFilename, patch: { url: result.newUrl }, done: `Renamed to ${result.newFilename}.` };
    });
  };

  const replace = (event: Event) => {
    event.preventDefault();
    if (!replacement) return action.setError('Choose the file to put in its place first.');
    void run('replace', async () => {
      const { data } = await replaceFile(file.filename, replacement);
      setReplacement(undefined);
      return { filename: file.filename, patch: { url: data.url, size: data.sizeBytes, mimeType: data.mimeType, updatedAt: data.updatedAt }, done: 'Replaced: same name and link, new content.' };
    });
  };

  const move = (event: Event) => {
    event.preventDefault();
    void action.run('move', async () => {
      const notMoved = await commands.move([file], target, folders);
      if (notMoved.length === 0) onChange({ kind: 'updated', oldFilename: file.filename, file: { ...file, folderId: target === 'root' ? null : target } });
    });
  };

  const togglePrivate = (on: boolean) => {
    setIsPrivate(on);
    void run('privacy', async () => {
      const { data } = await setPrivate(file.filename, on).catch((err: Error) => {
        setIsPrivate(!on);
        throw err;
      });
      // Thumbnail URLs change with privacy too (the earlier ones answer 404 now).
      const patch = { isPrivate: data.isPrivate, url: data.url, thumbnailUrl: data.thumbnailUrl, previewUrl: data.previewUrl };
      return { filename: file.filename, patch, done: data.isPrivate ? 'Private: only signed links open it now.' : 'Public: its link opens for anyone.' };
    });
  };

  // No confirmation: the toast's Undo holds the delete back.
  const remove = () => {
    commands.remove([file]);
    onChange({ kind: 'deleted', filename: file.filename });
  };

  return (
    <div class="file-actions">
      <section aria-labelledby={`${id}-links`}>
        <h3 id={`${id}-links`}>Share the link</h3>
        <FileLinks file={file} />
      </section>

      <form class="action-row" onSubmit={rename}>
        <label for={`${id}-name`}>Stored name</label>
        <input id={`${id}-name`} value={newName} required onInput={(event) => setNewName(event.currentTarget.value)} />
        <button type="submit" disabled={busy !== undefined}>
          <Icon icon={FilePen} />
          {busy === 'rename' ? 'Renaming…' : 'Rename'}
        </button>
      </form>

      <form class="action-row" onSubmit={replace}>
        <span class="action-label">Replace with</span>
        <FilePicker id={`${id}-replace`} label={replacement ? 'Choose another new file' : 'Choose the new file'} icon={FileUp} onFiles={([chosen]) => setReplacement(chosen)} />
        <span class="muted chosen-file" aria-live="polite">
          {replacement ? replacement.name : 'No file chosen yet'}
        </span>
        <button type="submit" disabled={busy !== undefined || !replacement}>
          {busy === 'replace' ? 'Replacing…' : 'Replace'}
        </button>
      </form>

      <form class="action-row" onSubmit={move}>
        <label for={`${id}-folder`}>Folder</label>
        <select id={`${id}-folder`} value={target} onChange={(event) => setTarget(event.currentTarget.value)}>
          <option value="root">Root library</option>
          <FolderOptions folders={folders} />
        </select>
        <button type="submit" disabled={busy !== undefined || target === (file.folderId ?? 'root')}>
          <Icon icon={FolderInput} />
          {busy === 'move' ? 'Moving…' : 'Move'}
        </button>
      </form>

      <div class="action-row">
        <input id={`${id}-private`} type="checkbox" checked={isPrivate} disabled={busy !== undefined} onChange={(event) => togglePrivate(event.currentTarget.checked)} />
        <label for={`${id}-private`}>Private (only signed links open it)</label>
      </div>

      <div class="action-row">
        <button type="button" class="danger" disabled={busy !== undefined} onClick={remove}>
          <Icon icon={Trash2} />
          Delete file
        </button>
      </div>

      <Status error={action.error} />
    </div>
  );
}
