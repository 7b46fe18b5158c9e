import type { Dashboard } from '../../contracts/dashboard.contract.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../principal.js';
import type { AccountRepository } from '../../repositories/account.repository.js';
import type { FileListQuery, FileRepository } from '../../repositories/file.repository.js';
import type { AccountService } from '../accounts/account.service.js';
import type { FileRecords } from './file-records.js';
import type { FolderKeyService } from '../folders/folder-key.service.js';
import type { FolderService } from '../folders/folder.service.js';

/** One numbered page of the dashboard: which, how many, narrowed how and in what order. */
export type DashboardQuery = Pick<FileListQuery, 'limit' | 'search' | 'folderId' | 'sortBy' | 'sortOrder'> & { page: number };

export class DashboardService {
  constructor(
    private readonly deps: {
      files: FileRepository;
      accountRows: AccountRepository;
      accounts: AccountService;
      folders: FolderService;
      folderKeys: FolderKeyService;
      records: FileRecords;
    },
  ) {}

  async get(principal: Principal, { page: pageNumber, ...query }: DashboardQuery): Promise<Dashboard> {
    if (query.folderId && query.folderId !== 'root') await this.deps.folders.get(principal, query.folderId);
    const [account, page, folders, folderKeys] = await Promise.all([
      this.deps.accountRows.findById(principal.id),
      this.deps.files.list(principal.id, { ...query, offset: (pageNumber - 1) * query.limit, countMatching: true }),
      this.deps.folders.list(principal),
      this.deps.folderKeys.listIfPro(principal),
    ]);
    if (!account) throw AppError.notFound('Account not found');
    const matching = page.matching ?? account.fileCount;
    const totalPages = Math.ceil(matching / query.limit);
    return {
      user: this.deps.accounts.dashboardUser(account),
      uploads: page.rows.map((file) => this.deps.records.of(file, principal)),
      folders,
      folderKeys,
      pagination: {
        currentPage: pageNumber,
        totalPages,
        totalUploads: matching,
        totalUserFiles: account.fileCount,
        limit: query.limit,
        hasNextPage: pageNumber < totalPages,
        hasPrevPage: pageNumber > 1,
      },
    };
  }
}
