import { z } from 'zod';
import type { AccountRow, FileRow } from '../db/schema.js';
import type { FileRepository } from '../repositories/file.repository.js';
import { validate } from '../validation.js';
import type { AccountService } from './account.service.js';
import type { FileUrls } from './file-urls.js';
import type { FolderKeyService } from './folder-key.service.js';
import type { FolderService } from './folder.service.js';

// From a query string, plain decimal digits only: "1e1", "0x10" or " 5" are not page numbers,
// whatever Number() makes of them. Callers in code may pass numbers.
const wholeNumber = (name: string) =>
  z.union([z.number().int(), z.string().regex(/^\d{1,9}$/).transform(Number)], { error: `${name} must be a whole number` });

export const dashboardQuerySchema = z.object({
  page: wholeNumber('page').pipe(z.number().min(1, 'page must be at least 1')).default(1),
  limit: wholeNumber('limit').pipe(z.number().min(1, 'limit must be at least 1').max(100, 'limit must be at most 100')).default(10),
  search: z
    .string()
    .max(200)
    .optional()
    // Names hold no control characters; neither may a search (the index joins the names with one).
    .transform((v) => v?.replace(/[\u0000-\u001f\u007f]/g, '').trim() || undefined),
  // a folder's id, or root (also "null") for files outside any folder
  folderId: z
    .union([z.enum(['root', 'null']), z.uuid()], { error: 'folderId must be a folder id or root' })
    .optional()
    .transform((v) => (v === 'null' ? 'root' : v)),
  sortBy: z.enum(['timestamp', 'size', 'filename', 'originalName']).default('timestamp'),
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
});

/** An upload as the dashboard lists it. */
export function toUpload(file: FileRow, url: string) {
  return {
    filename: file.filename,
    originalName: file.originalName,
    url,
    timestamp: file.createdAt.toISOString(),
    updatedAt: file.updatedAt?.toISOString() ?? null,
    size: file.size,
    folderId: file.folderId,
    source: file.source,
    isPrivate: file.isPrivate,
    mimeType: file.mimeType,
    expiresAt: file.expiresAt?.toISOString() ?? null,
  };
}

export class DashboardService {
  constructor(
    private readonly deps: {
      files: FileRepository;
      accounts: AccountService;
      folders: FolderService;
      folderKeys: FolderKeyService;
      urls: FileUrls;
    },
  ) {}

  async get(account: AccountRow, rawQuery: unknown) {
    const query = validate(dashboardQuerySchema, rawQuery);
    if (query.folderId && query.folderId !== 'root') await this.deps.folders.get(account, query.folderId);
    const [page, user, folders, folderKeys] = await Promise.all([
      this.deps.files.page(account.id, query),
      this.deps.accounts.dashboardUser(account),
      this.deps.folders.list(account),
      this.deps.folderKeys.listIfPro(account),
    ]);
    const matching = page.matching ?? account.fileCount;
    const totalPages = Math.ceil(matching / query.limit);
    return {
      user,
      uploads: page.rows.map((file) => toUpload(file, this.deps.urls.forFile(file, account))),
      folders,
      folderKeys,
      pagination: {
        currentPage: query.page,
        totalPages,
        totalUploads: matching,
        totalUserFiles: account.fileCount,
        limit: query.limit,
        hasNextPage: query.page < totalPages,
        hasPrevPage: query.page > 1,
      },
    };
  }
}
