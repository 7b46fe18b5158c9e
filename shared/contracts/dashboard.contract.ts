import { z } from 'zod';
import { dashboardUserSchema } from './account.contract.js';
import { count } from './common.contract.js';
import { fileRecordSchema } from './file.contract.js';
import { folderKeySchema, folderSchema } from './folder.contract.js';

export const paginationSchema = z.object({
  currentPage: count,
  totalPages: count,
  totalUploads: count,
  totalUserFiles: count,
  limit: count,
  hasNextPage: z.boolean(),
  hasPrevPage: z.boolean(),
});

/** GET /api/user/dashboard: one page of files with the account, its folders and folder keys. */
export const dashboardSchema = z
  .object({
    user: dashboardUserSchema,
    uploads: z.array(fileRecordSchema),
    folders: z.array(folderSchema),
    folderKeys: z.array(folderKeySchema).meta({ description: 'Empty unless Pro' }),
    pagination: paginationSchema,
  })
  .meta({ id: 'Dashboard' });
export type Dashboard = z.output<typeof dashboardSchema>;
