import { useState } from 'preact/hooks';
import { FolderSettings } from '../folders/folder-settings.js';
import { onLinkClick } from '../router.js';
import type { Folder } from '../types.js';
import { ConfirmDialog, Status } from '../ui.js';
import { createFolder, deleteFolder } from './file-api.js';
import { type FilesView, hrefOf } from './files-view.js';

/** The folders to narrow the files to, with New folder, each folder's Settings and Delete. */
export function FolderSidebar({ view, folders, onChanged }: { view: FilesView; folders: Folder[]; onChanged: (deleted?: string) => void }) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [message, setMessage] = useState<string | undefined>();
  const [settingsFor, setSettingsFor] = useState<Folder | undefined>();
  const [deleting, setDeleting] = useState<Folder | undefined>();

  const link = (folder: string | undefined, label: string) => (
    <a class="folder-link" href={hrefOf({ ...view, folder })} onClick={onLinkClick} aria-current={view.folder === folder ? 'page' : undefined}>
      {label}
    </a>
  );

  const create = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      const folder = await createFolder(name.trim());
      setName('');
      setMessage(`Folder ${folder.name} created.`);
      onChanged();
    } catch (err) {
      setError((err as Error).message);
    }
  };

  const remove = async (folder: Folder) => {
    await deleteFolder(folder.id);
    setMessage(`Folder ${folder.name} deleted; its files are in the root library.`);
    onChanged(folder.id);
  };

  return (
    <nav class="folders card" aria-labelledby="folders-heading">
      <h2 id="folders-heading">Folders</h2>
      <ul class="folder-list">
        <li>{link(undefined, 'All files')}</li>
        <li>{link('root', 'Not in a folder')}</li>
        {folders.map((folder) => (
          <li key={folder.id} class="folder-item">
            {link(folder.id, folder.name)}
            <span class="folder-buttons">
              <button type="button" class="small" onClick={() => setSettingsFor(folder)}>
                Settings<span class="sr-only"> of {folder.name}</span>
              </button>
              <button type="button" class="small danger" onClick={() => setDeleting(folder)}>
                Delete<span class="sr-only"> folder {folder.name}</span>
              </button>
            </span>
          </li>
        ))}
      </ul>
      <form class="new-folder" onSubmit={create}>
        <label for="new-folder">New folder</label>
        <span class="row">
          <input id="new-folder" value={name} maxLength={40} required onInput={(event) => setName(event.currentTarget.value)} />
          <button type="submit">Create</button>
        </span>
      </form>
      <Status error={error} message={message} />
      {settingsFor && (
        <FolderSettings
          folder={settingsFor}
          onClose={() => setSettingsFor(undefined)}
          onChanged={() => onChanged()}
        />
      )}
      {deleting && (
        <ConfirmDialog title="Delete this folder?" confirmLabel="Delete folder" danger onConfirm={() => remove(deleting)} onClose={() => setDeleting(undefined)}>
          <p>
            <strong>{deleting.name}</strong> goes; its files move to the root library.
          </p>
        </ConfirmDialog>
      )}
    </nav>
  );
}
