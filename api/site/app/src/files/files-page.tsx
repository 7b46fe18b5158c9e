import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { plural } from '../format.js';
import { navigate, useLocation } from '../router.js';
import type { FileRecord } from '../types.js';
import { Dialog, Status } from '../ui.js';
import { Uploader } from '../upload/uploader.js';
import { findFile, listFolders } from './file-api.js';
import { kindOf } from './file-facts.js';
import { FileActions, type FileChange } from './file-actions.js';
import { FileGrid, FileTable } from './file-views.js';
import { type FilesView, hrefOf, listQueryOf, SORTS, viewOf } from './files-view.js';
import { FolderSidebar } from './folder-sidebar.js';
import { SelectionBar, type SelectionResult } from './selection-bar.js';
import { useFileList } from './use-file-list.js';
import './files.css';

type Layout = 'grid' | 'list';
const LAYOUT_KEY = 'files-layout';
const SEARCH_DELAY_MS = 300;
/** after an upload, when to look again for its thumbnail */
const THUMBNAIL_RECHECK_MS = [1500, 4000];
/** how close (px) the end of the list comes before the next page loads */
const NEAR_PX = 400;

/** Whether a file belongs in the view (after an upload or a change): its folder, and the search. */
function shows(view: FilesView, file: FileRecord): boolean {
  if (view.folder && (view.folder === 'root' ? file.folderId !== null : file.folderId !== view.folder)) return false;
  const search = view.search.trim().toLowerCase();
  return !search || file.filename.toLowerCase().includes(search) || file.originalName.toLowerCase().includes(search);
}

/** The signed-in home: the uploader, the folders, and the files as a grid or a list, paged as one scrolls. */
export function FilesPage() {
  const { query } = useLocation();
  const view = viewOf(query);
  const listQuery = useMemo(() => listQueryOf({ folder: view.folder, search: view.search, sort: view.sort }), [view.folder, view.search, view.sort]);
  const list = useFileList(listQuery);
  const [layout, setLayout] = useState<Layout>(() => (localStorage.getItem(LAYOUT_KEY) === 'list' ? 'list' : 'grid'));
  const [searchText, setSearchText] = useState(view.search);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [actionsFor, setActionsFor] = useState<FileRecord | undefined>();
  const [status, setStatus] = useState<{ message?: string; error?: string }>({});
  const sentinel = useRef<HTMLDivElement>(null);
  const searchTimerRef = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const go = (next: Partial<FilesView>, replace = false) => navigate(hrefOf({ ...view, ...next }), replace);

  // The search box updates the address (and so the list) once typing pauses.
  const typed = (text: string) => {
    setSearchText(text);
    clearTimeout(searchTimerRef.current);
    if (text !== view.search) searchTimerRef.current = setTimeout(() => go({ search: text }, true), SEARCH_DELAY_MS);
  };
  // An address changed otherwise (Back, a link) wins over typing not sent yet.
  useEffect(() => {
    clearTimeout(searchTimerRef.current);
    setSearchText(view.search);
  }, [view.search]);
  useEffect(() => () => clearTimeout(searchTimerRef.current), []);
  useEffect(() => setSelected(new Set()), [listQuery]);

  // Infinite paging: the next page loads once the sentinel under the files comes near the viewport.
  // loadMore changes only with the query, and calls nothing while a page is on its way.
  const { loadMore } = list;
  useEffect(() => {
    const element = sentinel.current;
    if (!element) return;
    const observer = new IntersectionObserver(([entry]) => entry?.isIntersecting && loadMore(), { rootMargin: `0px 0px ${NEAR_PX}px 0px` });
    observer.observe(element);
    return () => observer.disconnect();
  }, [loadMore]);
  // A page too short to push the sentinel away calls for the next one (the observer only reports changes).
  useEffect(() => {
    const element = sentinel.current;
    if (element && !list.loading && list.hasNext && element.getBoundingClientRect().top < innerHeight + NEAR_PX) loadMore();
  }, [list.loading, list.hasNext, list.files.length, loadMore]);

  const folderName = view.folder === 'root' ? 'Not in a folder' : list.folders.find((f) => f.id === view.folder)?.name;
  const defaultFolder = list.user?.defaultUploadFolderId ?? null;
  // Uploads land in the default folder; anything else the view shows, they are filed into after.
  const uploadFolder = !view.folder || view.folder === (defaultFolder ?? 'root') ? null : view.folder;

  const changed = (change: FileChange) => {
    if (change.kind === 'deleted') {
      list.update(change.filename, null);
      setActionsFor(undefined);
      setStatus({ message: `${change.filename} deleted.` });
      return;
    }
    list.update(change.oldFilename, shows(view, change.file) ? change.file : null);
    setActionsFor(change.file);
  };

  const uploaded = async (filename: string) => {
    const { file } = await findFile(filename).catch(() => ({ file: undefined }));
    if (!file || !shows(view, file)) return;
    list.prepend(file);
    // Thumbnails are made just after an upload: look again a little later for one that was not ready.
    const kind = kindOf(file.mimeType);
    if (file.thumbnailUrl || (kind !== 'image' && kind !== 'video')) return;
    for (const delay of THUMBNAIL_RECHECK_MS) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      const { file: later } = await findFile(filename).catch(() => ({ file: undefined }));
      if (later?.thumbnailUrl) return list.update(filename, later);
    }
  };

  // Moved and deleted files change in place (or leave the view); the pages loaded stay loaded.
  const selectionDone = (result: SelectionResult) => {
    setStatus(result.error ? { error: result.message } : { message: result.message });
    for (const filename of result.deleted ?? []) list.update(filename, null);
    for (const filename of result.moved?.filenames ?? []) {
      const file = list.files.find((f) => f.filename === filename);
      const moved = file && { ...file, folderId: result.moved!.folderId };
      if (moved) list.update(filename, shows(view, moved) ? moved : null);
    }
  };

  const foldersChanged = async (deleted?: string) => {
    if (deleted && deleted === view.folder) go({ folder: undefined });
    // A deleted folder's files are in the root library now.
    for (const file of list.files) if (deleted && file.folderId === deleted) list.update(file.filename, { ...file, folderId: null });
    try {
      list.setFolders(await listFolders());
    } catch (err) {
      setStatus({ error: (err as Error).message });
    }
  };

  const setLayoutSaved = (next: Layout) => {
    setLayout(next);
    localStorage.setItem(LAYOUT_KEY, next);
  };

  const viewProps = {
    files: list.files,
    selected,
    onToggle: (filename: string, on: boolean) =>
      setSelected((s) => {
        const next = new Set(s);
        if (on) next.add(filename);
        else next.delete(filename);
        return next;
      }),
    onActions: setActionsFor,
    onStatus: (message: string) => setStatus({ message }),
  };

  return (
    <div class="files-page">
      <FolderSidebar view={view} folders={list.folders} onChanged={foldersChanged} />
      <div class="files-main">
        <h1>{folderName ? `Files: ${folderName}` : 'Files'}</h1>
        <Uploader folderId={uploadFolder} plan={list.user?.plan} onUploaded={(result) => void uploaded(result.filename)} />

        <div class="toolbar" role="search" aria-label="Files">
          <span class="field grow">
            <label for="file-search">Search</label>
            <input id="file-search" type="search" placeholder="Name contains…" value={searchText} onInput={(event) => typed(event.currentTarget.value)} />
          </span>
          <span class="field">
            <label for="file-sort">Sort</label>
            <select id="file-sort" value={view.sort} onChange={(event) => go({ sort: event.currentTarget.value })}>
              {SORTS.map((sort) => (
                <option key={sort.value} value={sort.value}>
                  {sort.label}
                </option>
              ))}
            </select>
          </span>
          <span class="layout-toggle" role="group" aria-label="Show files as">
            <button type="button" aria-pressed={layout === 'grid'} onClick={() => setLayoutSaved('grid')}>
              Grid
            </button>
            <button type="button" aria-pressed={layout === 'list'} onClick={() => setLayoutSaved('list')}>
              List
            </button>
          </span>
        </div>

        <SelectionBar
          files={list.files}
          selected={selected}
          setSelected={setSelected}
          folders={list.folders}
          onDone={selectionDone}
        />
        <Status error={list.error ?? status.error} message={status.message} />
        <p class="file-count muted" aria-live="polite" aria-busy={list.loading}>
          {list.loading && list.page === 0 ? 'Loading files…' : `${plural(list.total, 'file')}${view.search ? ` matching “${view.search}”` : ''}, ${list.files.length} shown`}
        </p>

        {layout === 'grid' ? <FileGrid {...viewProps} /> : <FileTable {...viewProps} />}
        {!list.loading && list.files.length === 0 && !list.error && (
          <p class="empty">{view.search ? 'No file matches this search.' : 'No files here yet: drop some on the page to upload them.'}</p>
        )}
        <div ref={sentinel} class="sentinel" aria-hidden="true" />
        {list.hasNext && (
          <button type="button" class="load-more" disabled={list.loading} onClick={list.loadMore}>
            {list.loading ? 'Loading…' : 'Load more'}
          </button>
        )}
      </div>
      {actionsFor && (
        <Dialog title={actionsFor.filename} onClose={() => setActionsFor(undefined)}>
          <FileActions file={actionsFor} folders={list.folders} onChange={changed} />
        </Dialog>
      )}
    </div>
  );
}
