import { z } from 'zod';
import { bytes, isoDate, uuid } from './common.contract.js';
import { fileRecordSchema } from './file.contract.js';
import { DROP_LINK_STATUSES } from './values.js';

export const dropLinkSchema = z
  .object({
    id: uuid,
    url: z.url().meta({ description: 'The page where someone without an account drops one file' }),
    status: z.enum(DROP_LINK_STATUSES),
    note: z.string().nullable(),
    folderId: uuid.nullable(),
    maxSizeBytes: bytes.nullable(),
    expiresAt: isoDate,
    createdAt: isoDate,
    receivedAt: isoDate.nullable(),
    file: fileRecordSchema.nullable(),
  })
  .meta({ id: 'DropLink' });
export type DropLink = z.output<typeof dropLinkSchema>;
