import { useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { formatDate } from '../format.js';
import { UploaderConfigLinks } from '../settings/uploader-configs.js';
import { useToasts } from '../toasts/toasts.js';
import type { Folder, FolderKey } from '../types.js';
import { InlineConfirm, SecretOnce, Status, useAction } from '../ui.js';

/**
 * The folder's key (Pro): uploads with it land in this folder and it opens nothing else. A new key
 * is shown once, to copy; after that only its dates and the uploader configs that carry it.
 * `folderKey` is undefined on a Free account: the panel says what Pro would bring, and asks nothing.
 */
export function FolderKeyPanel({ folder, folderKey, onChanged }: { folder: Folder; folderKey: FolderKey | null | undefined; onChanged: (key: FolderKey | null) => void }) {
  const [issued, setIssued] = useState<string | undefined>(undefined);
  const [confirming, setConfirming] = useState<'replace' | 'revoke' | undefined>(undefined);
  const action = useAction<'issue' | 'revoke'>();
  const toasts = useToasts();
  const issueButton = useRef<HTMLButtonElement>(null);
  const path = `/user/folders/${encodeURIComponent(folder.id)}/key`;

  // The new key takes the keyboard itself (SecretOnce); after a revoke the Issue button does.

  if (folderKey === undefined) {
    return (
      <section aria-labelledby="folder-key-title">
        <h3 id="folder-key-title">Folder key</h3>
        <p class="notice">
          Folder keys are part of the Pro plan. With Pro, a folder gets a key of its own that uploads straight into it and opens nothing else,
          for an app or a person you want to give no more than that.
        </p>
      </section>
    );
  }

  const issue = () =>
    action.run('issue', async () => {
      const { data } = await api<{ data: FolderKey & { apiKey: string } }>(path, { method: 'POST' });
      setIssued(data.apiKey);
      onChanged(data);
      setConfirming(undefined);
      toasts.show({ message: folderKey ? 'New key issued: the previous one no longer works.' : 'Folder key issued.' });
    });
  const revoke = () =>
    action.run('revoke', async () => {
      await api(path, { method: 'DELETE' });
      setIssued(undefined);
      onChanged(null);
      setConfirming(undefined);
      requestAnimationFrame(() => issueButton.current?.focus());
      toasts.show({ message: 'Folder key revoked: it no longer works.' });
    });

  return (
    <section aria-labelledby="folder-key-title">
      <h3 id="folder-key-title">Folder key</h3>
      {!folderKey && (
        <>
          <p>This folder has no key. A folder key uploads straight into this folder and opens nothing else.</p>
          <button ref={issueButton} type="button" class="primary" disabled={action.busy !== undefined} onClick={() => void issue()}>
            {action.busy === 'issue' ? 'Issuing…' : 'Issue a folder key'}
          </button>
        </>
      )}
      {folderKey && (
        <>
          {issued && <SecretOnce lead="Copy the key now:" value={issued} what="folder key" testId="folder-key" />}
          <p class="muted">
            Key issued {formatDate(folderKey.createdAt)}; {typeof folderKey.lastUsedAt === 'string' ? `last used ${formatDate(folderKey.lastUsedAt)}` : 'not used yet'}.
          </p>
          <p>Uploader configs with this folder's key:</p>
          <UploaderConfigLinks folderKeyId={folderKey.id} folderName={folder.name} />
          {confirming === 'replace' && (
            <InlineConfirm
              question="Issue a new key? The current one stops working at once."
              confirmLabel="Issue new key"
              keepLabel="Keep the key"
              busy={action.busy !== undefined}
              onConfirm={() => void issue()}
              onKeep={() => setConfirming(undefined)}
            />
          )}
          {confirming === 'revoke' && (
            <InlineConfirm
              question="Revoke the key? Uploads with it stop at once."
              confirmLabel="Revoke key"
              keepLabel="Keep the key"
              busy={action.busy !== undefined}
              onConfirm={() => void revoke()}
              onKeep={() => setConfirming(undefined)}
            />
          )}
          {!confirming && (
            <div class="row">
              <button type="button" onClick={() => setConfirming('replace')}>
                Issue a new key…
              </button>
              <button type="button" class="danger" onClick={() => setConfirming('revoke')}>
                Revoke key…
              </button>
            </div>
          )}
        </>
      )}
      <Status error={action.error} />
    </section>
  );
}
