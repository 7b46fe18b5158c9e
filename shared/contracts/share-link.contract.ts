import { z } from 'zod';
import { count, isoDate, uuid } from './common.contract.js';

export const SHARE_LINK_TYPES = ['file', 'folder'] as const;

export const shareLinkSchema = z
  .object({
    id: uuid,
    url: z.url().meta({ description: 'The link to hand out: {SITE_URL}/l/{token}' }),
    type: z.enum(SHARE_LINK_TYPES),
    filename: z.string().nullable().meta({ description: 'The shared file (type file), as it is named now' }),
    folderId: uuid.nullable().meta({ description: 'The shared folder (type folder)' }),
    expiresAt: isoDate.nullable(),
    maxViews: count.nullable(),
    views: count.meta({ description: 'Whole bodies served so far (200, or 206 from byte 0)' }),
    hasPassword: z.boolean(),
    createdAt: isoDate,
  })
  .meta({ id: 'ShareLink' });
export type ShareLink = z.output<typeof shareLinkSchema>;
