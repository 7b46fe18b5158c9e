import type { FileRow } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { Principal } from '../principal.js';
import type { AccountRepository } from '../repositories/account.repository.js';
import type { FileListQuery, FileRepository } from '../repositories/file.repository.js';
import type { AccountService } from './account.service.js';
import type { FileUrls } from './file-urls.js';
import type { FolderKeyService } from './folder-key.service.js';
import type { FolderService } from './folder.service.js';

/** One page of the dashboard: which, how many, narrowed how and in what order. */
export type DashboardQuery = FileListQuery;

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
      accountRows: AccountRepository;
      accounts: AccountService;
      folders: FolderService;
      folderKeys: FolderKeyService;
      urls: FileUrls;
    },
  ) {}

  async get(principal: Principal, query: DashboardQuery) {
    if (query.folderId && query.folderId !== 'root') await this.deps.folders.get(principal, query.folderId);
    const [account, page, folders, folderKeys] = await Promise.all([
      this.deps.accountRows.findById(principal.id),
      this.deps.files.page(principal.id, query),
      this.deps.folders.list(principal),
      this.deps.folderKeys.listIfPro(principal),
    ]);
    if (!account) throw AppError.notFound('Account not found');
    const matching = page.matching ?? account.fileCount;
    const totalPages = Math.ceil(matching / query.limit);
    return {
      user: this.deps.accounts.dashboardUser(account),
      uploads: page.rows.map((file) => toUpload(file, this.deps.urls.forFile(file, principal))),
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
