import path from 'node:path';
import { z } from 'zod';

// Request bodies and queries of files.routes.ts, checked before any service sees them.

// From a query string, plain decimal digits only: "1e1", "0x10" or " 5" are not page numbers,
// whatever Number() makes of them.
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

/**
 * Spaces become hyphens; an extension is required; nothing that could act as a path. Control
 * characters (C0, DEL, C1) are refused before the name is trimmed and its spaces replaced, which
 * would otherwise hide a newline or a tab at an end or turn it into a hyphen.
 */
const newFilenameSchema = z
  .string({ error: 'newFilename is required' })
  .refine((name) => !/[\u0000-\u001f\u007f-\u009f]/.test(name), 'newFilename must not contain control characters')
  .trim()
  .max(255, 'newFilename must be at most 255 characters')
  .transform((name) => name.replace(/\s+/g, '-'))
  .refine((name) => !/[/\\]/.test(name), 'newFilename must not contain slashes')
  // Bidi overrides and invisible characters make a name read otherwise than it is ("x\u202Egnp.exe").
  .refine((name) => !/[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/.test(name), 'newFilename must not contain invisible or direction-changing characters')
  .refine((name) => {
    const ext = path.extname(name);
    const base = name.slice(0, name.length - ext.length);
    return /^\.[A-Za-z0-9]{1,16}$/.test(ext) && base !== '' && !/^\.+$/.test(base);
  }, 'newFilename must have a name and an extension, e.g. holiday.png');
export const renameSchema = z.object({ newFilename: newFilenameSchema });

const folderIdSchema = z
  .uuid({ error: 'folderId must be a folder id or null' })
  .nullable()
  .optional()
  .transform((v) => v ?? null);
export const moveSchema = z.object({ folderId: folderIdSchema });
export const privacySchema = z.object({ isPrivate: z.boolean({ error: 'isPrivate must be true or false' }) });
export const batchMoveSchema = z.object({
  filenames: z.array(z.string().min(1), { error: 'filenames must be a non-empty array of filenames' }).min(1, 'filenames must not be empty').max(1000),
  folderId: folderIdSchema,
});
