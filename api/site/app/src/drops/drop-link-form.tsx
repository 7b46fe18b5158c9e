import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { DropLink, Folder } from '../types.js';
import { DurationSelect, FolderOptions, Status, useAction } from '../ui.js';

// How long a link stays open: the API takes 60 seconds to 7 days.
const EXPIRY_CHOICES = [
  { seconds: 3600, label: '1 hour' },
  { seconds: 6 * 3600, label: '6 hours' },
  { seconds: 86400, label: '1 day' },
  { seconds: 3 * 86400, label: '3 days' },
  { seconds: 7 * 86400, label: '7 days' },
];
const MAX_NOTE = 500;
const MB = 1024 * 1024;

/** Creates a drop link: its folder, how long it stays open, the largest file and a note for the sender. */
export function DropLinkForm({ folders, onCreated }: { folders: Folder[]; onCreated: (link: DropLink) => void }) {
  const [folderId, setFolderId] = useState('');
  const [expiresIn, setExpiresIn] = useState(86400);
  const [maxMb, setMaxMb] = useState('');
  const [note, setNote] = useState('');
  const action = useAction<'create'>();

  const submit = async (event: Event) => {
    event.preventDefault();
    const max = maxMb.trim() === '' ? null : Number(maxMb);
    if (max !== null && !(max > 0)) return action.setError('The largest file size must be a number of megabytes above 0, or left empty.');
    await action.run('create', async () => {
      const { data } = await api<{ data: DropLink }>('/user/drop-links', {
        method: 'POST',
        body: { folderId: folderId || null, expiresIn, maxSizeBytes: max === null ? null : Math.round(max * MB), note: note.trim() || null },
      });
      setNote('');
      onCreated(data);
    });
  };

  return (
    <form class="card drop-form" onSubmit={(e) => void submit(e)} aria-labelledby="drop-form-title">
      <h2 id="drop-form-title">New drop link</h2>
      <div class="form-grid">
        <label>
          <span>Save the file in</span>
          <select value={folderId} onChange={(e) => setFolderId(e.currentTarget.value)}>
            <option value="">My default upload folder</option>
            <FolderOptions folders={folders} />
          </select>
        </label>
        <DurationSelect label="Open for" value={expiresIn} choices={EXPIRY_CHOICES} onChange={setExpiresIn} />
        <label>
          <span>Largest file in MB (empty: your plan's limit)</span>
          <input type="number" min="1" step="any" inputMode="decimal" value={maxMb} onInput={(e) => setMaxMb(e.currentTarget.value)} />
        </label>
      </div>
      <label class="stack">
        <span>Note for the sender (optional)</span>
        <textarea rows={2} maxLength={MAX_NOTE} value={note} onInput={(e) => setNote(e.currentTarget.value)} placeholder="The signed contract, please" />
      </label>
      <div class="row">
        <button type="submit" class="primary" disabled={action.busy !== undefined}>
          {action.busy ? 'Creating…' : 'Create drop link'}
        </button>
      </div>
      {action.error && <Status error={action.error} />}
    </form>
  );
}
