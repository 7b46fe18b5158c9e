import { api, ApiError } from '../api.js';
import type { DashboardData, Folder, FolderKey } from '../types.js';
import { Dialog, Status, useAction, useLoad } from '../ui.js';
import { ShareLinksPanel } from '../share/share-links-panel.js';
import { AlbumShare } from './album-share.js';
import { FolderKeyPanel } from './folder-key-panel.js';

interface FolderState {
  defaultFolderId: string | null;
  folder: Folder;
  /** the folder's key, null when it has none; a string: why the account may not have one (403) */
  key: FolderKey | null | string;
}

/** What the dialog needs, read in two calls: the account and folders, and the folder keys (Pro). */
async function loadState(folder: Folder, signal: AbortSignal): Promise<FolderState> {
  const [dashboard, key] = await Promise.all([
    api<{ data: DashboardData }>('/user/dashboard?limit=1', { signal }),
    api<{ data: FolderKey[] }>('/user/folder-keys', { signal }).then(
      (r) => r.data.find((k) => k.folderId === folder.id) ?? null,
      (err: Error) => {
        if (err instanceof ApiError && err.status === 403) return err.message;
        throw err;
      },
    ),
  ]);
  const current = dashboard.data.folders.find((f) => f.id === folder.id);
  if (!current) throw new ApiError(404, 'This folder no longer exists.');
  return { defaultFolderId: dashboard.data.user.defaultUploadFolderId, folder: current, key };
}

/**
 * A folder's settings, opened from the file page's folder list: the default upload folder, sharing
 * it as an album, and its folder key (Pro) with uploader configs for it.
 */
export function FolderSettings({ folder, onClose, onChanged }: { folder: Folder; onClose: () => void; onChanged: () => void }) {
  const { data: state, error, setData: setState } = useLoad((signal) => loadState(folder, signal), folder.id);
  const action = useAction<'default'>();

  const isDefault = state?.defaultFolderId === folder.id;
  const setDefault = (makeDefault: boolean) =>
    action.run('default', async () => {
      const { defaultUploadFolderId } = await api<{ defaultUploadFolderId: string | null }>('/user/default-folder', {
        method: 'POST',
        body: { folderId: makeDefault ? folder.id : null },
      });
      setState((s) => s && { ...s, defaultFolderId: defaultUploadFolderId });
      onChanged();
      return makeDefault ? `Uploads with your API key now go to ${folder.name}.` : 'Uploads with your API key now go to the root library.';
    });

  const changed = (patch: Partial<FolderState>) => {
    setState((s) => s && { ...s, ...patch });
    onChanged();
  };

  return (
    <Dialog title={`Folder settings: ${folder.name}`} onClose={onClose}>
      {!state && !error && <p class="muted">Loading…</p>}
      {state && (
        <div class="folder-settings">
          <section aria-labelledby="folder-default-title">
            <h3 id="folder-default-title">Default upload folder</h3>
            <p data-testid="default-folder-state">
              {isDefault
                ? 'This is your default upload folder: uploads with your API key land here.'
                : 'Uploads with your API key land in another place. Make this folder the default to file them here.'}
            </p>
            <button type="button" class={isDefault ? undefined : 'primary'} disabled={action.busy !== undefined} onClick={() => void setDefault(!isDefault)}>
              {isDefault ? 'Stop using as default' : 'Make default upload folder'}
            </button>
            <Status message={action.message} />
          </section>
          <AlbumShare folder={state.folder} onChanged={(next) => changed({ folder: next })} />
          <ShareLinksPanel target={{ folderId: folder.id }} name={`the folder ${folder.name}`} />
          <FolderKeyPanel folder={state.folder} folderKey={state.key} onChanged={(key) => changed({ key })} />
        </div>
      )}
      <Status error={error ?? action.error} />
    </Dialog>
  );
}
