import type { ListQuery, SortBy, SortOrder } from './file-api.js';

// What the files page shows lives in its address (?folder=&q=&sort=), so Back, reloads and links keep it.

export const SORTS: { value: string; label: string }[] = [
  { value: 'timestamp-desc', label: 'Newest first' },
  { value: 'timestamp-asc', label: 'Oldest first' },
  { value: 'filename-asc', label: 'Name A–Z' },
  { value: 'filename-desc', label: 'Name Z–A' },
  { value: 'size-desc', label: 'Largest first' },
  { value: 'size-asc', label: 'Smallest first' },
  { value: 'originalName-asc', label: 'Original name A–Z' },
];

export interface FilesView {
  /** a folder's id, `root` (outside every folder), or undefined for all files */
  folder: string | undefined;
  search: string;
  sort: string;
}

export function viewOf(query: URLSearchParams): FilesView {
  const sort = query.get('sort') ?? '';
  return {
    folder: query.get('folder') || undefined,
    search: query.get('q') ?? '',
    sort: SORTS.some((s) => s.value === sort) ? sort : SORTS[0]!.value,
  };
}

export function hrefOf(view: FilesView): string {
  const params = new URLSearchParams();
  if (view.folder) params.set('folder', view.folder);
  if (view.search) params.set('q', view.search);
  if (view.sort !== SORTS[0]!.value) params.set('sort', view.sort);
  const query = params.toString();
  return query ? `/dashboard?${query}` : '/dashboard';
}

export function listQueryOf(view: FilesView): ListQuery {
  const [sortBy, sortOrder] = view.sort.split('-') as [SortBy, SortOrder];
  return { folderId: view.folder, search: view.search.trim() || undefined, sortBy, sortOrder };
}
