import { useState } from 'preact/hooks';
import { ShareLinksPanel } from '../share/share-links-panel.js';
import type { Folder } from '../types.js';
import { Dialog } from '../ui.js';
import { AlbumShare } from './album-share.js';

/** Sharing a folder, opened from its menu: as a public album, and with share links. */
export function FolderShare({ folder, onClose, onChanged }: { folder: Folder; onClose: () => void; onChanged: () => void }) {
  const [shown, setShown] = useState(folder);
  return (
    <Dialog title={`Share folder: ${folder.name}`} onClose={onClose}>
      <div class="folder-settings">
        <AlbumShare
          folder={shown}
          onChanged={(next) => {
            setShown(next);
            onChanged();
          }}
        />
        <ShareLinksPanel target={{ folderId: folder.id }} name={`the folder ${folder.name}`} />
      </div>
    </Dialog>
  );
}
