import { api, ApiError } from '../api.js';
import type { DashboardData, FileRecord, Folder } from '../types.js';
import type { RequestedFormat } from '../../../../../shared/services/media/renditions/rendition-params.js';

// The REST calls of the files pages, each named for what it does to a file or a folder.

export type SortBy = 'timestamp' | 'size' | 'filename' | 'originalName';
export type SortOrder = 'asc' | 'desc';

/** What a listing shows: `folderId` is a folder's id, `root` (outside any folder) or undefined (everything). */
export interface ListQuery {
  search?: string | undefined;
  folderId?: string | undefined;
  sortBy: SortBy;
  sortOrder: SortOrder;
}

const path = (filename: string, action = '') => `/user/images/${encodeURIComponent(filename)}${action}`;

export function listFiles(query: ListQuery & { page: number; limit: number }, signal?: AbortSignal): Promise<DashboardData> {
  const params = new URLSearchParams({ page: String(query.page), limit: String(query.limit), sortBy: query.sortBy, sortOrder: query.sortOrder });
  if (query.search) params.set('search', query.search);
  if (query.folderId) params.set('folderId', query.folderId);
  return api<{ data: DashboardData }>(`/user/dashboard?${params}`, { signal }).then((body) => body.data);
}

/**
 * One file by its stored name. There is no single-file route: the listing's search (a substring of
 * the stored or original name) narrows it down, and only an exact match counts.
 */
export async function findFile(filename: string, signal?: AbortSignal): Promise<{ file: FileRecord | undefined; data: DashboardData }> {
  const data = await listFiles({ search: filename, sortBy: 'timestamp', sortOrder: 'desc', page: 1, limit: 100 }, signal);
  return { file: data.uploads.find((upload) => upload.filename === filename), data };
}

export function renameFile(filename: string, newFilename: string) {
  return api<{ newFilename: string; newUrl: string }>(path(filename, '/rename'), { method: 'PUT', body: { newFilename } });
}

export function replaceFile(filename: string, file: File) {
  const form = new FormData();
  form.append('file', file);
  return api<{ data: { url: string; sizeBytes: number; mimeType: string; updatedAt: string } }>(path(filename, '/replace'), { method: 'PATCH', body: form });
}

/** The image's link at `w` px wide in `format`: the server signs a private file's with these parameters. */
export function sizedLink(filename: string, rendition: { w: number; format: RequestedFormat }, signal?: AbortSignal): Promise<string> {
  const params = new URLSearchParams({ w: String(rendition.w), format: rendition.format });
  return api<{ url: string }>(path(filename, `/link?${params}`), { signal }).then((body) => body.url);
}

export function setPrivate(filename: string, isPrivate: boolean) {
  return api<{ data: Pick<FileRecord, 'isPrivate' | 'url' | 'thumbnailUrl' | 'previewUrl'> }>(path(filename, '/privacy'), { method: 'PATCH', body: { isPrivate } });
}

/** `folderId` null or `root`: the root library. Files that could not be moved come back in `errors`. */
export function moveFiles(filenames: string[], folderId: string | null) {
  return api<{ moved: string[]; errors: { filename: string; error: string }[] }>('/user/images/move', {
    method: 'PATCH',
    body: { filenames, folderId: folderId === 'root' ? null : folderId },
  });
}

export function deleteFile(filename: string) {
  return api(path(filename), { method: 'DELETE' });
}

/** Deletes each file (a few at a time); answers which went (or were gone already) and which did not, with the reason. */
export async function deleteFiles(filenames: string[]): Promise<{ deleted: string[]; failed: { filename: string; error: string }[] }> {
  const deleted: string[] = [];
  const failed: { filename: string; error: string }[] = [];
  const queue = [...filenames];
  const worker = async () => {
    for (let filename = queue.shift(); filename !== undefined; filename = queue.shift()) {
      try {
        await deleteFile(filename);
        deleted.push(filename);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) deleted.push(filename);
        else failed.push({ filename, error: (err as Error).message });
      }
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return { deleted, failed };
}

export function listFolders(signal?: AbortSignal) {
  return api<{ data: Folder[] }>('/user/folders', { signal }).then((body) => body.data);
}

export function createFolder(name: string) {
  return api<{ data: Folder }>('/user/folders', { method: 'POST', body: { name } }).then((body) => body.data);
}

export function deleteFolder(id: string) {
  return api(`/user/folders/${encodeURIComponent(id)}`, { method: 'DELETE' });
}
