import type { Folder } from '../types.js';

/** A folder's settings: default upload folder, album sharing, its key and uploader configs (being built). */
export function FolderSettings(_props: { folder: Folder; onClose: () => void; onChanged: () => void }) {
  return null;
}
