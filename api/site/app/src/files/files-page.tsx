import { LayoutGrid, List } from 'lucide';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Icon } from '../../../views/icon.js';
import { copyText, plural, webUrl } from '../format.js';
import { Lightbox, type LightboxItem } from '../lightbox/lightbox.js';
import { navigate, useLocation } from '../router.js';
import { session } from '../session.js';
import { useToasts } from '../toasts/toasts.js';
import type { FileRecord } from '../types.js';
import { Dialog, Status } from '../ui.js';
import { Uploader } from '../upload/uploader.js';
import { EmptyFiles } from './empty-files.js';
import { findFile } from './file-api.js';
import { kindOf, sameOriginUrl, shownName } from './file-facts.js';
import { FileActions, type FileChange } from './file-actions.js';
import { FileGrid, FileTable } from './file-views.js';
import { type FilesView, hrefOf, listQueryOf, SORTS, viewOf } from './files-view.js';
import { FolderSidebar } from './folder-sidebar.js';
import { LibraryStats } from './library-stats.js';
import { announceChanges } from './library-changes.js';
import { SelectionBar } from './selection-bar.js';
import { useFileList } from './use-file-list.js';
import './files.css';

type Layout = 'grid' | 'list';
const LAYOUT_KEY = 'files-layout';
const SEARCH_DELAY_MS = 300;
/** after an upload, when to look again for its thumbnail */
const THUMBNAIL_RECHECK_MS = [1500, 4000];
/** how close (px) the end of the list comes before the next page loads */
const NEAR_PX = 400;

/** A file as the lightbox shows it: an image's preview rendition, a video from this origin (the CSP's), else a link. */
function lightboxItemOf(file: FileRecord): LightboxItem {
  const kind = kindOf(file.mimeType);
  const name = shownName(file);
  const href = webUrl(file.url)?.href ?? '';
  if (kind === 'video') return { kind, src: sameOriginUrl(file, session().username), alt: `Video ${name}`, name, href };
  const src = file.previewUrl ?? (kind === 'image' ? file.url : null);
  return src ? { kind: 'image', src, alt: name, name, href } : { kind: 'other', src: '', alt: name, name, href };
}

/** The signed-in home: the uploader, the folders, and the files as a grid or a list, paged as one scrolls. */
export function FilesPage() {
  const { query } = useLocation();
  const view = viewOf(query);
  const listQuery = useMemo(() => listQueryOf({ folder: view.folder, search: view.search, sort: view.sort }), [view.folder, view.search, view.sort]);
  const list = useFileList(listQuery);
  const toasts = useToasts();
  const [layout, setLayout] = useState<Layout>(() => (localStorage.getItem(LAYOUT_KEY) === 'list' ? 'list' : 'grid'));
  const [searchText, setSearchText] = useState(view.search);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [actionsFor, setActionsFor] = useState<FileRecord | undefined>();
  /** the file open in the lightbox, by its place in the list */
  const [viewing, setViewing] = useState<number | undefined>();
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
  // Files that left the list (moved away, deleted) leave the selection too.
  useEffect(() => {
    setSelected((current) => {
      const kept = new Set([...current].filter((name) => list.files.some((f) => f.filename === name)));
      return kept.size === current.size ? current : kept;
    });
  }, [list.files]);

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

  // The dialog follows its file (renamed, moved) and closes once it is deleted.
  const changed = (change: FileChange) => setActionsFor(change.kind === 'deleted' ? undefined : change.file);

  const uploaded = async (filename: string) => {
    const { file } = await findFile(filename).catch(() => ({ file: undefined }));
    if (!file) return;
    announceChanges([{ kind: 'saved', file }]);
    // Thumbnails are made just after an upload: look again a little later for one that was not ready.
    const kind = kindOf(file.mimeType);
    if (file.thumbnailUrl || (kind !== 'image' && kind !== 'video')) return;
    for (const delay of THUMBNAIL_RECHECK_MS) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      const { file: later } = await findFile(filename).catch(() => ({ file: undefined }));
      if (later?.thumbnailUrl) return announceChanges([{ kind: 'saved', file: later }]);
    }
  };

  const foldersChanged = (deleted?: string) => {
    if (deleted && deleted === view.folder) go({ folder: undefined });
    // A deleted folder's files are in the root library now.
    const freed = deleted ? list.files.filter((file) => file.folderId === deleted) : [];
    announceChanges(freed.map((file) => ({ kind: 'saved', file: { ...file, folderId: null } })));
    void list.refreshCounts();
  };

  const copyLink = async (file: FileRecord) => {
    if (await copyText(file.url)) toasts.show({ message: `Link to ${shownName(file)} copied.` });
    else toasts.show({ tone: 'error', message: 'Copying is not allowed here: open the file’s actions and copy the link by hand.' });
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
    onCopyLink: (file: FileRecord) => void copyLink(file),
  };
  const empty = !list.loading && list.files.length === 0 && !list.error;

  return (
    <div class="files-page">
      <FolderSidebar view={view} folders={list.folders} libraryTotal={list.libraryTotal} onChanged={foldersChanged} />
      <div class="files-main">
        <div class="files-head">
          <h1>{folderName ? `Files: ${folderName}` : 'Files'}</h1>
          {list.user && <LibraryStats user={list.user} files={list.libraryTotal} />}
        </div>
        <Uploader folderId={uploadFolder} plan={list.user?.plan} collapseDone onUploaded={(result) => void uploaded(result.filename)} />

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
              <Icon icon={LayoutGrid} />
              Grid
            </button>
            <button type="button" aria-pressed={layout === 'list'} onClick={() => setLayoutSaved('list')}>
              <Icon icon={List} />
              List
            </button>
          </span>
        </div>

        {list.files.length > 0 && <SelectionBar files={list.files} selected={selected} setSelected={setSelected} folders={list.folders} />}
        {list.error && <Status error={list.error} />}
        <p class="file-count muted" aria-live="polite" aria-busy={list.loading}>
          {list.loading && list.page === 0 ? 'Loading files…' : `${plural(list.total, 'file')}${view.search ? ` matching “${view.search}”` : ''}, ${list.files.length} shown`}
        </p>

        {layout === 'grid' ? <FileGrid {...viewProps} onView={(file) => setViewing(list.files.indexOf(file))} /> : <FileTable {...viewProps} />}
        {empty && <EmptyFiles view={view} folderName={folderName} onClearSearch={() => go({ search: '' })} />}
        <div ref={sentinel} class="sentinel" aria-hidden="true" />
        {list.hasNext && (
          <button type="button" class="load-more" disabled={list.loading} onClick={list.loadMore}>
            {list.loading ? 'Loading…' : 'Load more'}
          </button>
        )}
      </div>
      {viewing !== undefined && list.files[viewing] && (
        <Lightbox items={list.files.map(lightboxItemOf)} index={viewing} onIndexChange={setViewing} onClose={() => setViewing(undefined)} />
      )}
      {actionsFor && (
        <Dialog title={shownName(actionsFor)} onClose={() => setActionsFor(undefined)}>
          <FileActions file={actionsFor} folders={list.folders} onChange={changed} />
        </Dialog>
      )}
    </div>
  );
}
