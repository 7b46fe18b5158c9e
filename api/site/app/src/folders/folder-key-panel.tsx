import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { formatDate } from '../format.js';
import { UploaderConfigLinks } from '../settings/uploader-configs.js';
import type { Folder, FolderKey } from '../types.js';
import { CopyButton, InlineConfirm, Status } from '../ui.js';

/**
 * The folder's key (Pro): uploads with it land in this folder and it opens nothing else. A new key
 * is shown once, to copy; after that only its dates and the uploader configs that carry it.
 * `folderKey` is a string when the API refused keys to the account (403): its reason.
 */
export function FolderKeyPanel({ folder, folderKey, onChanged }: { folder: Folder; folderKey: FolderKey | null | string; onChanged: (key: FolderKey | null) => void }) {
  const [issued, setIssued] = useState<string | undefined>(undefined);
  const [confirming, setConfirming] = useState<'replace' | 'revoke' | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const shown = useRef<HTMLElement>(null);
  const issueButton = useRef<HTMLButtonElement>(null);
  const path = `/user/folders/${encodeURIComponent(folder.id)}/key`;

  // Keep the keyboard on what replaced the button pressed: the new key, or the Issue button.
  useEffect(() => {
    if (issued) shown.current?.focus();
  }, [issued]);

  if (typeof folderKey === 'string') {
    return (
      <section aria-labelledby="folder-key-title">
        <h3 id="folder-key-title">Folder key</h3>
        <p class="notice">
          Folder keys are part of the Pro plan. With Pro, a folder gets a key of its own that uploads straight into it and opens nothing else,
          for an app or a person you want to give no more than that. <span class="muted">({folderKey})</span>
        </p>
      </section>
    );
  }

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    setMessage(undefined);
    try {
      await work();
      setConfirming(undefined);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const issue = () =>
    run(async () => {
      const { data } = await api<{ data: FolderKey & { apiKey: string } }>(path, { method: 'POST' });
      setIssued(data.apiKey);
      onChanged(data);
      setMessage(folderKey ? 'New key issued: the previous one no longer works.' : 'Folder key issued.');
    });
  const revoke = () =>
    run(async () => {
      await api(path, { method: 'DELETE' });
      setIssued(undefined);
      onChanged(null);
      setMessage('Folder key revoked: it no longer works.');
      requestAnimationFrame(() => issueButton.current?.focus());
    });

  return (
    <section aria-labelledby="folder-key-title">
      <h3 id="folder-key-title">Folder key</h3>
      {!folderKey && (
        <>
          <p>This folder has no key. A folder key uploads straight into this folder and opens nothing else.</p>
          <button ref={issueButton} type="button" class="primary" disabled={busy} onClick={() => void issue()}>
            {busy ? 'Issuing…' : 'Issue a folder key'}
          </button>
        </>
      )}
      {folderKey && (
        <>
          {issued && (
            <div class="key-once">
              <p>
                <strong>Copy the key now:</strong> it is shown only this once.
              </p>
              <div class="row">
                <code ref={shown} tabIndex={-1} class="api-key" data-testid="folder-key">
                  {issued}
                </code>
                <CopyButton text={issued} what="folder key" />
              </div>
            </div>
          )}
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
              busy={busy}
              onConfirm={() => void issue()}
              onKeep={() => setConfirming(undefined)}
            />
          )}
          {confirming === 'revoke' && (
            <InlineConfirm
              question="Revoke the key? Uploads with it stop at once."
              confirmLabel="Revoke key"
              keepLabel="Keep the key"
              busy={busy}
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
      <Status error={error} message={message} />
    </section>
  );
}
