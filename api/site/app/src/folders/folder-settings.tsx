import { api, ApiError } from '../api.js';
import { session } from '../session.js';
import { useToasts } from '../toasts/toasts.js';
import type { DashboardData, Folder, FolderKey } from '../types.js';
import { Dialog, Status, useAction, useLoad } from '../ui.js';
import { FolderKeyPanel } from './folder-key-panel.js';

interface FolderState {
  defaultFolderId: string | null;
  folder: Folder;
  /** the folder's key, null when it has none; undefined on a Free account, which has no keys */
  key: FolderKey | null | undefined;
}

/** What the dialog needs in one call: the dashboard carries the account, its folders and (Pro) its folder keys. */
async function loadState(folder: Folder, signal: AbortSignal): Promise<FolderState> {
  const { data } = await api<{ data: DashboardData }>('/user/dashboard?limit=1', { signal });
  const current = data.folders.find((f) => f.id === folder.id);
  if (!current) throw new ApiError(404, 'This folder no longer exists.');
  const key = session().plan === 'pro' ? (data.folderKeys.find((k) => k.folderId === folder.id) ?? null) : undefined;
  return { defaultFolderId: data.user.defaultUploadFolderId, folder: current, key };
}

/**
 * A folder's settings, opened from its menu in the sidebar: the default upload folder, and its
 * folder key (Pro) with uploader configs for it. Sharing has a dialog of its own.
 */
export function FolderSettings({ folder, onClose, onChanged }: { folder: Folder; onClose: () => void; onChanged: () => void }) {
  const { data: state, error, setData: setState } = useLoad((signal) => loadState(folder, signal), folder.id);
  const action = useAction<'default'>();
  const toasts = useToasts();

  const isDefault = state?.defaultFolderId === folder.id;
  const setDefault = (makeDefault: boolean) =>
    action.run('default', async () => {
      const { defaultUploadFolderId } = await api<{ defaultUploadFolderId: string | null }>('/user/default-folder', {
        method: 'POST',
        body: { folderId: makeDefault ? folder.id : null },
      });
      setState((s) => s && { ...s, defaultFolderId: defaultUploadFolderId });
      onChanged();
      toasts.show({ message: makeDefault ? `Uploads with your API key now go to ${folder.name}.` : 'Uploads with your API key now go to the root library.' });
    });

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
          </section>
          <FolderKeyPanel folder={state.folder} folderKey={state.key} onChanged={(key) => setState((s) => s && { ...s, key })} />
        </div>
      )}
      <Status error={error ?? action.error} />
    </Dialog>
  );
}
