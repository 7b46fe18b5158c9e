import type { FileRecord, FileView } from '../../contracts/file.contract.js';
import type { ModerationState } from '../../contracts/values.js';
import type { FileRow } from '../../db/schema.js';
import { kindOf } from '../../file-kinds.js';
import type { FileUrls, UrlOwner } from './file-urls.js';
import type { ModerationService } from '../moderation/moderation.service.js';
import type { ThumbnailService } from '../media/thumbnails/thumbnail.service.js';

/**
 * The one place a file row becomes the record every listing hands out (the dashboard, a received drop
 * link) and the view assistants see, which adds the file's kind and its folder's name.
 */
export class FileRecords {
  constructor(private readonly deps: { urls: FileUrls; moderation: ModerationService; thumbnails: ThumbnailService }) {}

  of(file: FileRow, owner: UrlOwner): FileRecord {
    return {
      filename: file.filename,
      originalName: file.originalName,
      url: this.deps.urls.forFile(file, owner),
      timestamp: file.createdAt.toISOString(),
      updatedAt: file.updatedAt?.toISOString() ?? null,
      size: file.size,
      sha256: file.sha256,
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

  /** `folderNames`: the owner's folders by id (a file's folder is always its owner's). */
  viewOf(file: FileRow, owner: UrlOwner, folderNames: ReadonlyMap<string, string>): FileView {
    const record = this.of(file, owner);
    // Assistants' hosts show thumbnails in a sandbox without the owner's cookie: a private file's are signed like its link.
    const sign = (url: string | null) => url && this.deps.urls.signed(url, file);
    return {
      ...record,
      ...(file.isPrivate ? { thumbnailUrl: sign(record.thumbnailUrl), previewUrl: sign(record.previewUrl) } : {}),
      kind: kindOf(file.mimeType),
      uploadedAt: record.timestamp,
      folder: file.folderId ? { id: file.folderId, name: folderNames.get(file.folderId) ?? '' } : null,
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
