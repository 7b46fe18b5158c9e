import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { listFolders } from '../files/file-api.js';
import { listenToNotifications } from '../notifications/stream.js';
import type { DropLink } from '../types.js';
import { useToasts } from '../toasts/toasts.js';
import { ConfirmDialog, Status, useLoad } from '../ui.js';
import { DropLinkForm } from './drop-link-form.js';
import { DropLinkItem, type ShownDropLink } from './drop-link-item.js';

/**
 * File drop links: ask someone without an account for one file. Create one, copy it, see whether
 * the file came (live, from the notification stream), cancel it.
 */
export function DropsPage() {
  const links = useLoad((signal) => api<{ data: { dropLinks: DropLink[] } }>('/user/drop-links', { signal }).then((r) => r.data.dropLinks as ShownDropLink[]));
  const folders = useLoad((signal) => listFolders(signal));
  const [created, setCreated] = useState<string | undefined>(undefined);
  const [cancelling, setCancelling] = useState<ShownDropLink | undefined>(undefined);
  const toasts = useToasts();

  // A file dropped through one of the links arrives as a `drop` notification: read the list again.
  const reloadLinks = links.reload;
  useEffect(() => listenToNotifications({ notification: (n) => n.type === 'drop' && reloadLinks() }), [reloadLinks]);

  const onCreated = (link: DropLink) => {
    links.setData((current) => [link, ...(current ?? [])]);
    setCreated(link.id);
    toasts.show({ message: 'Drop link created. Copy it and send it to the person who has the file.' });
  };

  const cancel = async (link: ShownDropLink) => {
    await api(`/user/drop-links/${encodeURIComponent(link.id)}`, { method: 'DELETE' });
    links.setData((current) => current?.map((l) => (l.id === link.id ? { ...l, cancelled: true } : l)));
    toasts.show({ message: link.status === 'pending' ? 'Drop link cancelled: it takes no file any more.' : 'Drop link removed from the list.' });
  };

  const folderName = (id: string | null) => (id ? (folders.data?.find((f) => f.id === id)?.name ?? 'a folder') : 'your default upload folder');
  return (
    <>
      <h1>Drop links</h1>
      <p class="muted">
        A drop link lets someone without an account send you one file. It lands in your library and counts against your plan like any
        upload.
      </p>
      <DropLinkForm folders={folders.data ?? []} onCreated={onCreated} />
      <section aria-labelledby="drop-list-title">
        <h2 id="drop-list-title">Your drop links</h2>
        {links.error && <Status error={links.error} />}
        {!links.data && !links.error && <p class="muted">Loading…</p>}
        {links.data?.length === 0 && <p>No drop links yet.</p>}
        {links.data && links.data.length > 0 && (
          <ul class="drop-list">
            {links.data.map((link) => (
              <DropLinkItem key={link.id} link={link} folderName={folderName(link.folderId)} focusCopy={link.id === created} onCancel={() => setCancelling(link)} />
            ))}
          </ul>
        )}
      </section>
      {cancelling && (
        <ConfirmDialog
          title={cancelling.status === 'pending' ? 'Cancel this drop link?' : 'Remove this drop link?'}
          confirmLabel={cancelling.status === 'pending' ? 'Cancel the link' : 'Remove'}
          danger
          onConfirm={() => cancel(cancelling)}
          onClose={() => setCancelling(undefined)}
        >
          {cancelling.status === 'pending' ? (
            <p>Whoever has the link can no longer send a file with it. This cannot be undone.</p>
          ) : (
            <p>The link leaves your list. A file it brought stays in your library.</p>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}
