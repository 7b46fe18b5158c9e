import { z } from 'zod';
import type { FileRow } from '../../db/schema.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../principal.js';
import type { FileView } from '../../contracts/file.contract.js';
import { FILE_KINDS } from '../../file-kinds.js';
import { validate } from '../../validation.js';
import type { FileRepository } from '../../repositories/file.repository.js';
import type { StorageDriver } from '../../storage/storage-driver.js';
import type { FileRecords } from './file-records.js';
import { imagePreview, type Preview, videoFramePreview } from '../media/file-preview.js';
import type { FolderService } from '../folders/folder.service.js';
import type { ModerationService } from '../moderation/moderation.service.js';

export const browseFilesSchema = z.object({
  cursor: z.string().max(200).optional().describe('nextCursor of the previous page'),
  limit: z.number().int().min(1).max(100).default(25),
  search: z.string().trim().max(100).optional().describe('part of the file name or original name'),
  folderId: z.string().max(64).optional().describe("a folder id, or 'root' for files outside folders"),
  kind: z.enum(FILE_KINDS).optional(),
  uploadedAfter: z.iso.datetime({ offset: true }).optional(),
  uploadedBefore: z.iso.datetime({ offset: true }).optional(),
});
export type BrowseFilesInput = z.input<typeof browseFilesSchema>;

/** What view_file gives: the picture (downscaled), or why there is none. */
export interface FilePreview {
  file: FileView;
  image?: Preview;
  note?: string;
}

/**
 * An account's files as an assistant browses them: newest first with a cursor, filtered by kind and
 * date, each with its URL in the account's style; and a look at one (an image it can see).
 */
export class FileBrowserService {
  constructor(
    private readonly deps: {
      files: FileRepository;
      folders: FolderService;
      storage: StorageDriver;
      moderation: ModerationService;
      records: FileRecords;
    },
  ) {}

  async list(account: Principal, input: BrowseFilesInput): Promise<{ files: FileView[]; nextCursor: string | null }> {
    const query = validate(browseFilesSchema, input);
    if (query.folderId && query.folderId !== 'root') await this.deps.folders.get(account, query.folderId);
    // The folders' names are read beside the page, not after it: one round trip less on each call.
    const [{ rows }, folders] = await Promise.all([
      this.deps.files.list(account.id, {
        limit: query.limit + 1,
        sortBy: 'timestamp',
        sortOrder: 'desc',
        after: query.cursor ? decodeCursor(query.cursor) : undefined,
        search: query.search || undefined,
        folderId: query.folderId,
        kind: query.kind,
        uploadedAfter: query.uploadedAfter ? new Date(query.uploadedAfter) : undefined,
        uploadedBefore: query.uploadedBefore ? new Date(query.uploadedBefore) : undefined,
      }),
      this.deps.folders.list(account),
    ]);
    const page = rows.slice(0, query.limit);
    const views = this.viewsIn(account, page, folders);
    const last = page.at(-1);
    return { files: views, nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null };
  }

  async get(account: Principal, filename: string): Promise<FileView> {
    const [view] = await this.viewsOf(account, [await this.owned(account, filename)]);
    return view!;
  }

  /** The file for an assistant's eyes: an image or a video's frame, downscaled; never a blocked file. */
  async preview(account: Principal, filename: string, signal?: AbortSignal): Promise<FilePreview> {
    const row = await this.owned(account, filename);
    const [file] = await this.viewsOf(account, [row]);
    if (row.quarantined) throw new AppError(451, 'quarantined', 'This file was blocked by moderation and cannot be shown');
    if (!this.deps.moderation.isServable(row)) return { file: file!, note: 'This file is waiting for moderation' };
    if (file!.kind !== 'image' && file!.kind !== 'video') return { file: file!, note: `A ${file!.kind} file cannot be shown as an image; open its URL` };
    const object = await this.deps.storage.get(row.objectKey);
    if (!object) throw AppError.notFound('The stored file is missing');
    const image = file!.kind === 'image' ? await imagePreview(object.body, signal) : await videoFramePreview(object.body, signal);
    return { file: file!, image };
  }

  private async owned(account: Principal, filename: string): Promise<FileRow> {
    const row = await this.deps.files.findOwned(account.id, filename);
    if (!row) throw AppError.notFound('File not found');
    return row;
  }

  private async viewsOf(account: Principal, rows: FileRow[]): Promise<FileView[]> {
    return this.viewsIn(account, rows, rows.some((row) => row.folderId) ? await this.deps.folders.list(account) : []);
  }

  private viewsIn(account: Principal, rows: FileRow[], folders: { id: string; name: string }[]): FileView[] {
    const names = new Map(folders.map((folder) => [folder.id, folder.name]));
    return rows.map((row) => this.deps.records.viewOf(row, account, names));
  }
}

function encodeCursor(row: FileRow): string {
  return Buffer.from(JSON.stringify([row.createdAt.toISOString(), row.id])).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [string, string];
    const createdAt = new Date(at);
    if (Number.isNaN(createdAt.getTime()) || !z.uuid().safeParse(id).success) throw new Error('bad cursor');
    return { createdAt, id };
  } catch {
    throw AppError.badRequest('cursor is not one this service gave');
  }
}
