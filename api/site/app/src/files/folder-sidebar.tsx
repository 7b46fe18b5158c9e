import { useState } from 'preact/hooks';
import { FolderSettings } from '../folders/folder-settings.js';
import { onLinkClick } from '../router.js';
import type { Folder } from '../types.js';
import { ConfirmDialog, Status, useAction } from '../ui.js';
import { createFolder, deleteFolder } from './file-api.js';
import { type FilesView, hrefOf } from './files-view.js';

/** The folders to narrow the files to, with New folder, each folder's Settings and Delete. */
export function FolderSidebar({ view, folders, onChanged }: { view: FilesView; folders: Folder[]; onChanged: (deleted?: string) => void }) {
  const [name, setName] = useState('');
  const action = useAction<'create'>();
  const [settingsFor, setSettingsFor] = useState<Folder | undefined>();
  const [deleting, setDeleting] = useState<Folder | undefined>();

  const link = (folder: string | undefined, label: string) => (
    <a class="folder-link" href={hrefOf({ ...view, folder })} onClick={onLinkClick} aria-current={view.folder === folder ? 'page' : undefined}>
      {label}
    </a>
  );

  const create = (event: Event) => {
    event.preventDefault();
    return action.run('create', async () => {
      const folder = await createFolder(name.trim());
      setName('');
      onChanged();
      return `Folder ${folder.name} created.`;
    });
  };

  const remove = async (folder: Folder) => {
    await deleteFolder(folder.id);
    action.setMessage(`Folder ${folder.name} deleted; its files are in the root library.`);
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
          <button type="submit" disabled={action.busy !== undefined}>
            Create
          </button>
        </span>
      </form>
      <Status error={action.error} message={action.message} />
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
