import type { App } from '@modelcontextprotocol/ext-apps';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { FileView } from '../../../../../shared/contracts/file.contract.js';
import { formatBytes, formatDay, plural } from '../format.js';
import { Thumbnail } from '../files/thumbnail.js';
import '../files/files.css';
import type { Folder } from '../types.js';
import { ConfirmDialog, FolderOptions, Status, useAction } from '../ui.js';
import { type AppViewProps, assertAllOk, callTool, startApp, structuredOf, Waiting } from './mcp-app.js';

// The gallery: list_files' result as the dashboard's tiles, a folder filter and "Show more" through
// the tool's cursor; selected files are renamed, moved or deleted by the tools themselves.

interface Page {
  files: FileView[];
  nextCursor: string | null;
}
type Results = { results: { filename: string; ok: boolean; error?: string }[] };
/** The filter's values: every file, the root's, or a folder's id. */
const ALL = '';

function Gallery({ app, input, result }: AppViewProps) {
  const [page, setPage] = useState<Page | undefined>(undefined);
  const [folderId, setFolderId] = useState(ALL);
  const [folders, setFolders] = useState<Folder[]>([]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [said, setSaid] = useState('');
  const action = useAction<'list' | 'rename' | 'move' | 'delete'>();

  useEffect(() => {
    if (!result || result.isError) return;
    setPage(structuredOf<Page>(result));
    setFolderId(typeof input?.folderId === 'string' ? input.folderId : ALL);
    setSelected(new Set());
  }, [result, input]);
  // Without folders:read the filter offers the folders the files are in.
  useEffect(() => {
    if (result && !result.isError) void callTool<{ folders: Folder[] }>(app, 'list_folders', {}).then((r) => setFolders(r.folders), () => undefined);
  }, [app, result]);

  if (!page) return <Waiting result={result} what="files" />;
  const folderChoices = folders.length ? folders : foldersOf(page.files);

  /** The assistant's own filters (search, kind, dates), with this folder and cursor. */
  const list = (folder: string, cursor?: string) => {
    const { cursor: _c, folderId: _f, ...filters } = input ?? {};
    return callTool<Page>(app, 'list_files', { ...filters, ...(folder ? { folderId: folder } : {}), ...(cursor ? { cursor } : {}) });
  };
  const reload = async (folder = folderId) => {
    const fresh = await list(folder);
    setPage(fresh);
    setSelected(new Set([...selected].filter((name) => fresh.files.some((f) => f.filename === name))));
    setSaid(`Showing ${plural(fresh.files.length, 'file')}${fresh.nextCursor ? ', more to show' : ''}.`);
  };
  const filter = (folder: string) => {
    setFolderId(folder);
    setSelected(new Set());
    void action.run('list', () => reload(folder));
  };
  const more = () =>
    action.run('list', async () => {
      const next = await list(folderId, page.nextCursor!);
      setPage({ files: [...page.files, ...next.files], nextCursor: next.nextCursor });
      setSaid(`Showing ${plural(page.files.length + next.files.length, 'file')}${next.nextCursor ? ', more to show' : ''}.`);
    });
  const toggle = (filename: string) => {
    const next = new Set(selected);
    if (!next.delete(filename)) next.add(filename);
    setSelected(next);
  };
  const chosen = [...selected];
  const change = (name: 'rename' | 'move' | 'delete', work: () => Promise<string>) =>
    action.run(name, async () => {
      const done = await work();
      await reload();
      return done;
    });

  return (
    <main class="mcp-app gallery">
      <h1 class="sr-only">Your files</h1>
      <div class="toolbar">
        <label class="field">
          <span>Folder</span>
          <select value={folderId} onChange={(e) => filter(e.currentTarget.value)} data-testid="folder-filter">
            <option value={ALL}>All files</option>
            <option value="root">Not in a folder</option>
            <FolderOptions folders={folderChoices} />
          </select>
        </label>
      </div>
      <div class={chosen.length ? 'selection-bar active' : 'selection-bar'} role="group" aria-label="Selected files">
        <span class="select-all">{chosen.length ? `${plural(chosen.length, 'file')} selected` : 'Select files to change them'}</span>
        {chosen.length === 1 && <RenameForm key={chosen[0]} filename={chosen[0]!} busy={action.busy !== undefined} onRename={(newFilename) => change('rename', () => rename(app, chosen[0]!, newFilename))} />}
        {chosen.length > 0 && <MoveForm folders={folderChoices} busy={action.busy !== undefined} onMove={(target) => change('move', () => move(app, chosen, target))} />}
        {chosen.length > 0 && <DeleteButton count={chosen.length} onDelete={() => change('delete', () => remove(app, chosen))} />}
      </div>
      <Status error={action.error} />
      {page.files.length === 0 ? (
        <p class="empty">No files here.</p>
      ) : (
        <ul class="file-grid" data-testid="gallery-files">
          {page.files.map((file) => (
            <li key={file.filename} class={selected.has(file.filename) ? 'tile selected' : 'tile'} data-filename={file.filename}>
              <Thumbnail file={file} />
              <input type="checkbox" class="select-file" id={`pick-${file.filename}`} checked={selected.has(file.filename)} onChange={() => toggle(file.filename)} />
              <label class="tile-name" for={`pick-${file.filename}`} title={file.originalName}>
                {file.filename}
              </label>
              <span class="tile-facts muted">
                {formatBytes(file.size)} · {formatDay(file.uploadedAt)}
                {file.isPrivate ? ' · private' : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
      {page.nextCursor && (
        <p>
          <button type="button" disabled={action.busy !== undefined} onClick={() => void more()}>
            {action.busy === 'list' ? 'Loading…' : 'Show more'}
          </button>
        </p>
      )}
      <p class="sr-only" role="status">
        {said}
      </p>
    </main>
  );
}

function RenameForm({ filename, busy, onRename }: { filename: string; busy: boolean; onRename: (newFilename: string) => void }) {
  const [name, setName] = useState(filename);
  return (
    <form class="row" onSubmit={(e) => (e.preventDefault(), onRename(name.trim()))}>
      <label class="row">
        <span>New name</span>
        <input value={name} required maxLength={255} onInput={(e) => setName(e.currentTarget.value)} data-testid="rename-input" />
      </label>
      <button type="submit" disabled={busy || !name.trim() || name.trim() === filename}>
        Rename
      </button>
    </form>
  );
}

function MoveForm({ folders, busy, onMove }: { folders: Folder[]; busy: boolean; onMove: (folderId: string | null) => void }) {
  const [target, setTarget] = useState('root');
  return (
    <form class="row" onSubmit={(e) => (e.preventDefault(), onMove(target === 'root' ? null : target))}>
      <label class="row">
        <span>Move to</span>
        <select value={target} onChange={(e) => setTarget(e.currentTarget.value)}>
          <option value="root">Library root</option>
          <FolderOptions folders={folders} />
        </select>
      </label>
      <button type="submit" disabled={busy}>
        Move
      </button>
    </form>
  );
}

/** Deleting is for good: asked first, in a dialog. */
function DeleteButton({ count, onDelete }: { count: number; onDelete: () => Promise<void> }) {
  const [asking, setAsking] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  return (
    <>
      <button ref={opener} type="button" class="danger" onClick={() => setAsking(true)}>
        Delete
      </button>
      {asking && (
        <ConfirmDialog title={`Delete ${plural(count, 'file')}?`} confirmLabel="Delete for good" danger onConfirm={onDelete} onClose={() => setAsking(false)}>
          <p>Their links stop working at once. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </>
  );
}

async function rename(app: App, filename: string, newFilename: string) {
  const { results } = await callTool<Results>(app, 'rename_files', { renames: [{ filename, newFilename }] });
  assertAllOk(results);
  return `Renamed ${filename} to ${newFilename}.`;
}

async function move(app: App, filenames: string[], folderId: string | null) {
  assertAllOk((await callTool<Results>(app, 'move_files', { filenames, folderId })).results);
  return `Moved ${plural(filenames.length, 'file')}.`;
}

async function remove(app: App, filenames: string[]) {
  assertAllOk((await callTool<Results>(app, 'delete_files', { filenames })).results);
  return `Deleted ${plural(filenames.length, 'file')}.`;
}

/** The folders the listed files are in, when the folders themselves cannot be listed. */
function foldersOf(files: FileView[]): Folder[] {
  const byId = new Map(files.flatMap((f) => (f.folder ? [[f.folder.id, f.folder] as const] : [])));
  return [...byId.values()] as Folder[];
}

startApp('gallery', Gallery);
