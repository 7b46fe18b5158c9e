import { FileSearch, FolderOpen, Upload } from 'lucide';
import { Icon } from '../../../views/icon.js';
import type { FilesView } from './files-view.js';

/** What an empty list means, and what to do next: upload, move files here, or search again. */
export function EmptyFiles({ view, folderName, onClearSearch }: { view: FilesView; folderName: string | undefined; onClearSearch: () => void }) {
  if (view.search) {
    return (
      <div class="empty">
        <Icon icon={FileSearch} size={40} />
        <p class="empty-title">No file matches “{view.search}”.</p>
        <p class="muted">Search looks in the original and the stored names.</p>
        <button type="button" onClick={onClearSearch}>
          Clear search
        </button>
      </div>
    );
  }
  if (view.folder) {
    return (
      <div class="empty">
        <Icon icon={FolderOpen} size={40} />
        <p class="empty-title">{view.folder === 'root' ? 'Every file is in a folder.' : `${folderName ?? 'This folder'} is empty.`}</p>
        <p class="muted">Drop files on this page to upload them here, or select files under All files and move them here.</p>
      </div>
    );
  }
  return (
    <div class="empty empty-library">
      <Icon icon={Upload} size={40} />
      <p class="empty-title">No files yet</p>
      <p class="muted">Drop files anywhere on this page, paste a screenshot with Ctrl+V, or choose files to upload.</p>
      {/* the uploader's own input, so the files go the same way */}
      <button type="button" class="primary" onClick={() => document.getElementById('file')?.click()}>
        Choose files
      </button>
    </div>
  );
}
