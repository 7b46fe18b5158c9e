import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { webUrl } from '../format.js';
import type { Folder } from '../types.js';
import { useToasts } from '../toasts/toasts.js';
import { CopyButton, InlineConfirm, Status, useAction } from '../ui.js';

/** Shares the folder as a public album (its public files, newest first, and a zip), or stops sharing. */
export function AlbumShare({ folder, onChanged }: { folder: Folder; onChanged: (folder: Folder) => void }) {
  const action = useAction<'share' | 'stop'>();
  const toasts = useToasts();
  const [confirmStop, setConfirmStop] = useState(false);
  const path = `/user/folders/${encodeURIComponent(folder.id)}/share`;
  // The button pressed goes away with the change: keep the keyboard on what replaced it.
  const movedRef = useRef(false);
  const linkField = useRef<HTMLInputElement>(null);
  const shareButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!movedRef.current) return;
    movedRef.current = false;
    (folder.shared ? linkField.current : shareButton.current)?.focus();
  }, [folder.shared]);

  const share = () =>
    action.run('share', async () => {
      const { data } = await api<{ data: { url: string } }>(path, { method: 'POST' });
      movedRef.current = true;
      onChanged({ ...folder, shared: true, shareUrl: data.url });
      toasts.show({ message: 'The folder is shared: anyone with the link sees its public files.' });
    });
  const stop = () =>
    action.run('stop', async () => {
      await api(path, { method: 'DELETE' });
      setConfirmStop(false);
      movedRef.current = true;
      onChanged({ ...folder, shared: false, shareUrl: null });
      toasts.show({ message: 'No longer shared: the album link stopped working.' });
    });

  return (
    <section aria-labelledby="folder-album-title">
      <h3 id="folder-album-title">Shared album</h3>
      {folder.shared && folder.shareUrl ? (
        <>
          <p>Anyone with this link sees the folder's public files and can download them as a zip. Private files never show.</p>
          <div class="row link-row">
            <label class="sr-only" for="album-link">
              Album link
            </label>
            <input id="album-link" ref={linkField} class="wide" readOnly value={folder.shareUrl} onFocus={(e) => e.currentTarget.select()} />
            <CopyButton text={folder.shareUrl} what="album link" />
            <a href={webUrl(folder.shareUrl)?.href} target="_blank" rel="noopener">
              Open album
            </a>
          </div>
          {confirmStop ? (
            <InlineConfirm
              question="Stop sharing? The link stops working at once; sharing again makes a new one."
              confirmLabel="Stop sharing"
              keepLabel="Keep sharing"
              busy={action.busy !== undefined}
              onConfirm={() => void stop()}
              onKeep={() => setConfirmStop(false)}
            />
          ) : (
            <button type="button" class="danger" onClick={() => setConfirmStop(true)}>
              Stop sharing…
            </button>
          )}
        </>
      ) : (
        <>
          <p>Share this folder as an album: a public page with its public files, without your account.</p>
          <button ref={shareButton} type="button" class="primary" disabled={action.busy !== undefined} onClick={() => void share()}>
            {action.busy === 'share' ? 'Sharing…' : 'Share as album'}
          </button>
        </>
      )}
      <Status error={action.error} />
    </section>
  );
}
