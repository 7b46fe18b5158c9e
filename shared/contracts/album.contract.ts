import { z } from 'zod';
import { bytes, count, isoDate } from './common.contract.js';

export const albumShareSchema = z.object({ shareId: z.string(), url: z.url(), sharedAt: isoDate }).meta({ id: 'AlbumShare' });
export type AlbumShare = z.output<typeof albumShareSchema>;

export const albumFileSchema = z.object({
  filename: z.string(),
  url: z.url(),
  mimeType: z.string(),
  sizeBytes: bytes,
  createdAt: isoDate,
  thumbnail: z
    .object({ url: z.url(), width: count, height: count })
    .nullable()
    .meta({ description: 'The small WebP thumbnail and its size, once made (images, GIFs, videos)' }),
  previewUrl: z.url().nullable().meta({ description: 'The 1280 px WebP preview (the lightbox’s image), made with the thumbnail; null without one' }),
});
export type AlbumFile = z.output<typeof albumFileSchema>;
export const albumPageSchema = z
  .object({
    shareId: z.string(),
    name: z.string(),
    owner: z.string(),
    url: z.url(),
    downloadUrl: z.url().meta({ description: 'The whole album as one zip' }),
    files: z.array(albumFileSchema),
    page: count,
    totalPages: count,
    totalFiles: count,
  })
  .meta({ id: 'AlbumPage' });
export type AlbumPage = z.output<typeof albumPageSchema>;
