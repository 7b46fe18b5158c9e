import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { DashboardUser, FileRecord, Folder } from '../types.js';
import { type ListQuery, listFiles } from './file-api.js';
import { type LibraryChange, onLibraryChange } from './library-changes.js';
import { pendingDeletes } from './pending-deletes.js';

const PAGE_SIZE = 24;

interface ListState {
  files: FileRecord[];
  folders: Folder[];
  user: DashboardUser | undefined;
  /** files matching the query, as the server counts them */
  total: number;
  /** every file of the account */
  libraryTotal: number;
  page: number;
  hasNext: boolean;
  loading: boolean;
  error: string | undefined;
}

const EMPTY: ListState = { files: [], folders: [], user: undefined, total: 0, libraryTotal: 0, page: 0, hasNext: false, loading: true, error: undefined };

/** Whether a file belongs in the query's list: its folder, and the search. */
function shows(query: ListQuery, file: FileRecord): boolean {
  const folder = query.folderId;
  if (folder && (folder === 'root' ? file.folderId !== null : file.folderId !== folder)) return false;
  const search = query.search?.toLowerCase();
  return !search || file.filename.toLowerCase().includes(search) || file.originalName.toLowerCase().includes(search);
}

const SORT_KEYS = {
  timestamp: (f: FileRecord) => Date.parse(f.timestamp),
  size: (f: FileRecord) => f.size,
  filename: (f: FileRecord) => f.filename.toLowerCase(),
  originalName: (f: FileRecord) => f.originalName.toLowerCase(),
};

/** Where a new file goes among those loaded, in the query's order; -1: after them, on a page not loaded yet. */
function placeOf(files: FileRecord[], file: FileRecord, query: ListQuery, hasNext: boolean): number {
  const key = SORT_KEYS[query.sortBy];
  const sign = query.sortOrder === 'asc' ? 1 : -1;
  const index = files.findIndex((other) => (key(file) < key(other) ? -1 : key(file) > key(other) ? 1 : 0) * sign < 0);
  if (index >= 0) return index;
  return hasNext ? -1 : files.length;
}

/** The list after changes made elsewhere: changed files replaced in place, new ones placed by the sort, others dropped. */
function applied(state: ListState, changes: LibraryChange[], query: ListQuery): ListState {
  let { files, total } = state;
  for (const change of changes) {
    const oldName = change.kind === 'removed' ? change.filename : (change.oldFilename ?? change.file.filename);
    const at = files.findIndex((f) => f.filename === oldName);
    if (change.kind === 'saved' && shows(query, change.file)) {
      if (at >= 0) files = files.map((f, i) => (i === at ? change.file : f));
      else {
        const place = placeOf(files, change.file, query, state.hasNext);
        if (place >= 0) files = [...files.slice(0, place), change.file, ...files.slice(place)];
        total += 1;
      }
    } else if (at >= 0) {
      files = files.filter((_, i) => i !== at);
      total = Math.max(0, total - 1);
    }
  }
  return { ...state, files, total };
}

/**
 * The files of a query, a page at a time: page 1 whenever the query changes, the next one on
 * `loadMore()`. Changes made anywhere in the app (library-changes) patch the list without reloading
 * it; files waiting to be deleted are left out. A new `query` object is a new query: keep it the
 * same object (useMemo) while it lists the same.
 */
export function useFileList(query: ListQuery) {
  const [state, setState] = useState<ListState>(EMPTY);
  const [, setTick] = useState(0);
  // The call in flight: one at a time, and a new query aborts the old one's.
  const inFlight = useRef<AbortController | undefined>(undefined);
  const stateRef = useRef(state);
  stateRef.current = state;

  const fetchPage = useCallback(
    async (page: number) => {
      inFlight.current?.abort();
      const controller = new AbortController();
      inFlight.current = controller;
      setState((s) => ({ ...s, loading: true, error: undefined }));
      try {
        const data = await listFiles({ ...query, page, limit: PAGE_SIZE }, controller.signal);
        if (controller.signal.aborted) return;
        setState((s) => {
          const before = page === 1 ? [] : s.files;
          const seen = new Set(before.map((f) => f.filename));
          return {
            files: [...before, ...data.uploads.filter((f) => !seen.has(f.filename))],
            folders: data.folders,
            user: data.user,
            total: data.pagination.totalUploads,
            libraryTotal: data.pagination.totalUserFiles,
            page,
            hasNext: data.pagination.hasNextPage,
            loading: false,
            error: undefined,
          };
        });
      } catch (err) {
        if (controller.signal.aborted || (err as Error).name === 'AbortError') return;
        setState((s) => ({ ...s, loading: false, error: (err as Error).message }));
      } finally {
        if (inFlight.current === controller) inFlight.current = undefined;
      }
    },
    [query],
  );

  // The old list stays on screen until the new one arrives.
  useEffect(() => {
    void fetchPage(1);
    return () => inFlight.current?.abort();
  }, [fetchPage]);

  /** The folders' counts, the library's total and the account's usage, read again after a change (one file is the least a page lists). */
  const refreshCounts = useCallback(async () => {
    try {
      const data = await listFiles({ sortBy: 'timestamp', sortOrder: 'desc', page: 1, limit: 1 });
      setState((s) => ({ ...s, folders: data.folders, user: data.user, libraryTotal: data.pagination.totalUserFiles }));
    } catch {
      // The counts stay as they were; the next change or load tries again.
    }
  }, []);

  useEffect(
    () =>
      onLibraryChange((changes) => {
        setState((s) => applied(s, changes, query));
        void refreshCounts();
      }),
    [query, refreshCounts],
  );
  useEffect(() => pendingDeletes.subscribe(() => setTick((n) => n + 1)), []);

  const loadMore = useCallback(() => {
    const s = stateRef.current;
    if (s.loading || !s.hasNext || inFlight.current) return;
    void fetchPage(s.page + 1);
  }, [fetchPage]);

  const waiting = pendingDeletes.records();
  const hidden = state.files.filter((f) => pendingDeletes.has(f.filename)).length;
  return {
    ...state,
    files: hidden ? state.files.filter((f) => !pendingDeletes.has(f.filename)) : state.files,
    total: state.total - hidden,
    libraryTotal: Math.max(0, state.libraryTotal - waiting.length),
    folders: waiting.length ? state.folders.map((folder) => ({ ...folder, fileCount: Math.max(0, folder.fileCount - waiting.filter((f) => f.folderId === folder.id).length) })) : state.folders,
    loadMore,
    refreshCounts,
  };
}
