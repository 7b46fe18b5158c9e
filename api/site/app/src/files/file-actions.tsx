import { useEffect, useId, useState } from 'preact/hooks';
import type { FileRecord, Folder } from '../types.js';
import { ConfirmDialog, FolderOptions, Status, useAction } from '../ui.js';
import { CopyLinks } from './copy-links.js';
import { deleteFile, findFile, moveFiles, renameFile, replaceFile, setPrivate } from './file-api.js';

type Action = 'rename' | 'replace' | 'move' | 'privacy';

export type FileChange = { kind: 'updated'; oldFilename: string; file: FileRecord } | { kind: 'deleted'; filename: string };

/**
 * Everything one can do to a file: copy its link in each format, rename, replace, move, make it
 * private or public, delete. Used by the file page and by the grid's Actions dialog.
 */
export function FileActions({ file, folders, onChange }: { file: FileRecord; folders: Folder[]; onChange: (change: FileChange) => void }) {
  const id = useId();
  const action = useAction<Action>();
  const busy = action.busy;
  const [newName, setNewName] = useState(file.filename);
  const [replacement, setReplacement] = useState<File | undefined>();
  const [target, setTarget] = useState(file.folderId ?? 'root');
  const [confirmDelete, setConfirmDelete] = useState(false);
  // The box shows the choice at once; it goes back if the change is refused.
  const [isPrivate, setIsPrivate] = useState(file.isPrivate);
  useEffect(() => setIsPrivate(file.isPrivate), [file.isPrivate]);

  /** Runs one change, then reads the file again: its URL, thumbnail and dates may all have moved. */
  const run = (what: Action, change: () => Promise<{ filename: string; patch: Partial<FileRecord>; done: string }>) =>
    action.run(what, async () => {
      const { filename, patch, done } = await change();
      const fresh = await findFile(filename).then((found) => found.file, () => undefined);
      onChange({ kind: 'updated', oldFilename: file.filename, file: fresh ?? { ...file, ...patch, filename } });
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
      return { filename: file.filename, patch: { url: data.url, size: data.sizeBytes, mimeType: data.mimeType, updatedAt: data.updatedAt }, done: 'Replaced: same name and link, new content.' };
    });
  };

  const move = (event: Event) => {
    event.preventDefault();
    void run('move', async () => {
      const result = await moveFiles([file.filename], target);
      if (result.errors[0]) throw new Error(result.errors[0].error);
      const folder = folders.find((f) => f.id === target);
      return { filename: file.filename, patch: { folderId: folder?.id ?? null }, done: folder ? `Moved to ${folder.name}.` : 'Moved to the root library.' };
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

  /** From the confirmation: its dialog shows a refusal; the file's view goes once it is gone. */
  const remove = async () => {
    await deleteFile(file.filename);
    onChange({ kind: 'deleted', filename: file.filename });
  };

  return (
    <div class="file-actions">
      <section aria-labelledby={`${id}-links`}>
        <h3 id={`${id}-links`}>Share the link</h3>
        <CopyLinks url={file.url} name={file.originalName || file.filename} />
      </section>

      <form class="action-row" onSubmit={rename}>
        <label for={`${id}-name`}>Name</label>
        <input id={`${id}-name`} value={newName} required onInput={(event) => setNewName(event.currentTarget.value)} />
        <button type="submit" disabled={busy !== undefined}>
          {busy === 'rename' ? 'Renaming…' : 'Rename'}
        </button>
      </form>

      <form class="action-row" onSubmit={replace}>
        <label for={`${id}-replace`}>Replace with</label>
        <input id={`${id}-replace`} type="file" onChange={(event) => setReplacement(event.currentTarget.files?.[0])} />
        <button type="submit" disabled={busy !== undefined}>
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
          {busy === 'move' ? 'Moving…' : 'Move'}
        </button>
      </form>

      <div class="action-row">
        <input id={`${id}-private`} type="checkbox" checked={isPrivate} disabled={busy !== undefined} onChange={(event) => togglePrivate(event.currentTarget.checked)} />
        <label for={`${id}-private`}>Private (only signed links open it)</label>
      </div>

      <div class="action-row">
        <button type="button" class="danger" disabled={busy !== undefined} onClick={() => setConfirmDelete(true)}>
          Delete file…
        </button>
      </div>

      <Status error={action.error} message={action.message} />

      {confirmDelete && (
        <ConfirmDialog title="Delete this file?" confirmLabel="Delete" danger onConfirm={remove} onClose={() => setConfirmDelete(false)}>
          <p>
            <strong>{file.filename}</strong> and its link go for good. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
