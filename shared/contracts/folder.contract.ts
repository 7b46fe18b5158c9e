import { z } from 'zod';
import { count, isoDate, uuid } from './common.contract.js';

export const folderSchema = z
  .object({ id: uuid, name: z.string().max(40), userId: uuid, createdAt: isoDate, fileCount: count, shared: z.boolean(), shareUrl: z.url().nullable() })
  .meta({ id: 'Folder' });
export type Folder = z.output<typeof folderSchema>;

export const folderKeySchema = z
  .object({
    id: uuid,
    folderId: uuid,
    userId: uuid,
    apiKey: z.string().regex(/^fk_[0-9a-f]{6}_[0-9a-f]{32}$/),
    createdAt: isoDate,
    lastUsedAt: isoDate.nullable(),
    folderName: z.string(),
  })
  .meta({ id: 'FolderKey' });
export type FolderKey = z.output<typeof folderKeySchema>;
