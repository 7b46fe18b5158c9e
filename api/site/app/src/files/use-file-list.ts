import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { DashboardUser, FileRecord, Folder } from '../types.js';
import { type ListQuery, listFiles } from './file-api.js';

const PAGE_SIZE = 24;

interface ListState {
  files: FileRecord[];
  folders: Folder[];
  user: DashboardUser | undefined;
  /** files matching the query, as the server counts them */
  total: number;
  page: number;
  hasNext: boolean;
  loading: boolean;
  error: string | undefined;
}

const EMPTY: ListState = { files: [], folders: [], user: undefined, total: 0, page: 0, hasNext: false, loading: true, error: undefined };

/**
 * The files of a query, a page at a time: page 1 whenever the query changes, the next one on
 * `loadMore()`. Local changes (an upload, a rename, a delete) patch the list without reloading it.
 * A new `query` object is a new query: keep it the same object (useMemo) while it lists the same.
 */
export function useFileList(query: ListQuery) {
  const [state, setState] = useState<ListState>(EMPTY);
  const [version, setVersion] = useState(0);
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
  }, [fetchPage, version]);

  const loadMore = useCallback(() => {
    const s = stateRef.current;
    if (s.loading || !s.hasNext || inFlight.current) return;
    void fetchPage(s.page + 1);
  }, [fetchPage]);

  return {
    ...state,
    loadMore,
    reload: () => setVersion((v) => v + 1),
    /** Puts a new file first (an upload), unless it is listed already. */
    prepend: (file: FileRecord) =>
      setState((s) => (s.files.some((f) => f.filename === file.filename) ? s : { ...s, files: [file, ...s.files], total: s.total + 1 })),
    /** Swaps a file for its changed self, or drops it (deleted, or moved out of the view). */
    update: (oldFilename: string, file: FileRecord | null) =>
      setState((s) => ({
        ...s,
        files: file ? s.files.map((f) => (f.filename === oldFilename ? file : f)) : s.files.filter((f) => f.filename !== oldFilename),
        total: file ? s.total : Math.max(0, s.total - 1),
      })),
    setFolders: (folders: Folder[]) => setState((s) => ({ ...s, folders })),
  };
}
