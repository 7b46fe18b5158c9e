import { FolderPlus, Settings, Share2, Trash2 } from 'lucide';
import { useState } from 'preact/hooks';
import { Icon } from '../../../views/icon.js';
import { FolderSettings } from '../folders/folder-settings.js';
import { FolderShare } from '../folders/folder-share.js';
import { MenuButton } from '../menu.js';
import { onLinkClick } from '../router.js';
import { useToasts } from '../toasts/toasts.js';
import type { Folder } from '../types.js';
import { ConfirmDialog, Status, useAction } from '../ui.js';
import { createFolder, deleteFolder } from './file-api.js';
import { type FilesView, hrefOf } from './files-view.js';

/** "its 3 files move", "its file moves", "nothing moves" */
const filesIn = (folder: Folder) => (folder.fileCount === 0 ? 'no file moves' : folder.fileCount === 1 ? 'its file moves' : `its ${folder.fileCount} files move`);

type Open = { kind: 'settings' | 'share' | 'delete'; folder: Folder };

interface Props {
  view: FilesView;
  folders: Folder[];
  /** every file of the account */
  libraryTotal: number;
  /** after a folder was made, changed or deleted (its id) */
  onChanged: (deleted?: string) => void;
}

/** The folders to narrow the files to, each with its count and a menu (settings, share, delete), and New folder. */
export function FolderSidebar({ view, folders, libraryTotal, onChanged }: Props) {
  const [name, setName] = useState('');
  const action = useAction<'create'>();
  const toasts = useToasts();
  const [open, setOpen] = useState<Open | undefined>();
  const inFolders = folders.reduce((sum, folder) => sum + folder.fileCount, 0);

  const link = (folder: string | undefined, label: string, count: number) => (
    <a class="folder-link" href={hrefOf({ ...view, folder })} onClick={onLinkClick} aria-current={view.folder === folder ? 'page' : undefined}>
      <span class="folder-name">{label}</span>{' '}
      <span class="folder-count">
        {count}
        <span class="sr-only"> {count === 1 ? 'file' : 'files'}</span>
      </span>
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
    toasts.show({ message: folder.fileCount ? `Folder ${folder.name} deleted; its files are in the root library.` : `Folder ${folder.name} deleted.` });
    onChanged(folder.id);
  };

  return (
    <nav class="folders card" aria-labelledby="folders-heading">
      <h2 id="folders-heading">Folders</h2>
      <ul class="folder-list">
        <li class="folder-item">{link(undefined, 'All files', libraryTotal)}</li>
        <li class="folder-item">{link('root', 'Not in a folder', Math.max(0, libraryTotal - inFolders))}</li>
        {folders.map((folder) => (
          <li key={folder.id} class="folder-item">
            {link(folder.id, folder.name, folder.fileCount)}
            <MenuButton
              label={`Folder actions: ${folder.name}`}
              items={[
                { label: 'Settings', icon: Settings, onSelect: () => setOpen({ kind: 'settings', folder }) },
                { label: 'Share', icon: Share2, onSelect: () => setOpen({ kind: 'share', folder }) },
                { label: 'Delete', icon: Trash2, danger: true, onSelect: () => setOpen({ kind: 'delete', folder }) },
              ]}
            />
          </li>
        ))}
      </ul>
      <form class="new-folder" onSubmit={create}>
        <label for="new-folder">New folder</label>
        <span class="row">
          <input id="new-folder" value={name} maxLength={40} required onInput={(event) => setName(event.currentTarget.value)} />
          <button type="submit" class="icon-only" title="Create folder" disabled={action.busy !== undefined}>
            <Icon icon={FolderPlus} />
            <span class="sr-only">Create folder</span>
          </button>
        </span>
      </form>
      <Status error={action.error} />
      {open?.kind === 'settings' && <FolderSettings folder={open.folder} onClose={() => setOpen(undefined)} onChanged={() => onChanged()} />}
      {open?.kind === 'share' && <FolderShare folder={open.folder} onClose={() => setOpen(undefined)} onChanged={() => onChanged()} />}
      {open?.kind === 'delete' && (
        <ConfirmDialog title="Delete this folder?" confirmLabel="Delete folder" danger onConfirm={() => remove(open.folder)} onClose={() => setOpen(undefined)}>
          <p>
            <strong>{open.folder.name}</strong> goes; {filesIn(open.folder)} to the root library. Its album, share links and folder key stop working.
          </p>
        </ConfirmDialog>
      )}
    </nav>
  );
}
