import { z } from 'zod';
import { FILE_KINDS } from '../file-kinds.js';
import { bytes, isoDate, sha256Hex, uuid } from './common.contract.js';
import { expiryValueSchema } from './expiry.contract.js';
import { MODERATION_STATES } from './values.js';

/** A file as every listing hands it out: the dashboard, a received drop link, and (extended) assistants. */
export const fileRecordSchema = z
  .object({
    filename: z.string(),
    originalName: z.string(),
    url: z.url(),
    timestamp: isoDate.meta({ description: 'Upload time' }),
    updatedAt: isoDate.nullable().meta({ description: 'Set by replace' }),
    size: bytes,
    sha256: sha256Hex.nullable().meta({ description: 'SHA-256 (hex) of the stored bytes, which the hosted URL serves; null for files stored before it was kept' }),
    folderId: uuid.nullable().meta({ description: 'null: the root library' }),
    source: z.string().meta({ example: 'api' }),
    isPrivate: z.boolean(),
    mimeType: z.string(),
    expiry: expiryValueSchema.nullable().meta({ description: 'The expiry chosen at upload' }),
    expiresAt: isoDate.nullable(),
    moderationState: z.enum(MODERATION_STATES).meta({
      description: 'pending: not judged yet; allowed: allowed, released by an administrator, or not a kind that is judged; flagged: marked for review; blocked: quarantined',
    }),
    thumbnailUrl: z.url().nullable().meta({ description: 'Small WebP (256 px on the long side) while the file has one and is served; a private file’s only for its signed-in owner' }),
    previewUrl: z.url().nullable().meta({ description: 'Larger WebP (1280 px on the long side), on the same terms' }),
  })
  .meta({ id: 'FileRecord', description: 'An upload as the dashboard lists it' });
export type FileRecord = z.output<typeof fileRecordSchema>;

/** The record as assistants see it (list_files, get_file, view_file): plus its kind and folder by name. */
export const fileViewSchema = fileRecordSchema
  .extend({
    kind: z.enum(FILE_KINDS),
    uploadedAt: isoDate.meta({ description: 'Upload time (the same as timestamp)' }),
    folder: z.object({ id: uuid, name: z.string() }).nullable(),
  })
  .meta({ id: 'FileView', description: 'A file as assistants see it' });
export type FileView = z.output<typeof fileViewSchema>;
