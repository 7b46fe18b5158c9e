import type { FileRow } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { Principal } from '../principal.js';
import type { AccountRepository } from '../repositories/account.repository.js';
import type { FileListQuery, FileRepository } from '../repositories/file.repository.js';
import type { AccountService } from './account.service.js';
import type { FileUrls, UrlOwner } from './file-urls.js';
import type { FolderKeyService } from './folder-key.service.js';
import type { FolderService } from './folder.service.js';
import type { ModerationService } from './moderation.service.js';
import type { ThumbnailService } from './thumbnails/thumbnail.service.js';

/** One page of the dashboard: which, how many, narrowed how and in what order. */
export type DashboardQuery = FileListQuery;

export type ModerationState = 'pending' | 'allowed' | 'flagged' | 'blocked';

/**
 * Uploads as the dashboard (and a received drop link) lists them: the spec's record, plus what the
 * dashboard shows of each file: its type, expiry, moderation state and thumbnails.
 */
export class UploadRecords {
  constructor(private readonly deps: { urls: FileUrls; moderation: ModerationService; thumbnails: ThumbnailService }) {}

  of(file: FileRow, owner: UrlOwner) {
    return {
      filename: file.filename,
      originalName: file.originalName,
      url: this.deps.urls.forFile(file, owner),
      timestamp: file.createdAt.toISOString(),
      updatedAt: file.updatedAt?.toISOString() ?? null,
      size: file.size,
      folderId: file.folderId,
      source: file.source,
      isPrivate: file.isPrivate,
      mimeType: file.mimeType,
      expiry: file.expiry,
      expiresAt: file.expiresAt?.toISOString() ?? null,
      moderationState: this.moderationStateOf(file),
      ...this.deps.thumbnails.urlsOf(file),
    };
  }

  /** A released file is allowed whatever its verdict; content never sent for judging has nothing to wait for. */
  private moderationStateOf(file: FileRow): ModerationState {
    if (file.quarantined) return 'blocked';
    if (file.moderationReviewedAt) return 'allowed';
    if (file.moderationVerdict === 'hard_block') return 'blocked';
    if (file.moderationVerdict === 'soft_flag') return 'flagged';
    if (!file.moderatedAt && this.deps.moderation.isModerated(file.mimeType)) return 'pending';
    return 'allowed';
  }
}

export class DashboardService {
  constructor(
    private readonly deps: {
      files: FileRepository;
      accountRows: AccountRepository;
      accounts: AccountService;
      folders: FolderService;
      folderKeys: FolderKeyService;
      records: UploadRecords;
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
      uploads: page.rows.map((file) => this.deps.records.of(file, principal)),
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
