import { z } from 'zod';
import { bytes, sha256Hex } from './common.contract.js';
import { expiryOptionSchema, expiryValueSchema } from './expiry.contract.js';

/** What every upload answers: multipart, URL, tus (…/result), upload_file, upload_from_url. */
export const uploadResultSchema = z
  .object({
    url: z.url().meta({ description: 'The hosted URL, working at once' }),
    filename: z.string().meta({ description: 'Stored name (may differ from the local name)' }),
    originalFilename: z.string(),
    mimeType: z.string(),
    sizeBytes: bytes,
    sha256: sha256Hex,
    expiry: expiryValueSchema.nullable(),
    deletionUrl: z.url().meta({ description: 'GET it to delete this file; it carries the file’s own token, not the account key' }),
  })
  .meta({
    id: 'UploadResult',
    example: {
      url: 'http://alice.localhost:3000/Xk2P9aQm1z.png',
      filename: 'Xk2P9aQm1z.png',
      originalFilename: 'cat.png',
      mimeType: 'image/png',
      sizeBytes: 48213,
      sha256: '3a6eb0790f39ac87c94f3856b2dd2c5d110e6811602261a9a923d3bb23adc8b7',
      expiry: '1d',
      deletionUrl: 'http://localhost:3000/api/delete/Xk2P9aQm1z.png?token=…',
    },
  });
export type UploadResult = z.output<typeof uploadResultSchema>;

export const uploadConfigSchema = z
  .object({
    expiryOptions: z.array(expiryOptionSchema),
    maxFileSize: z.object({ anonymous: bytes, free: bytes, pro: bytes, registered: bytes.meta({ description: "The caller's plan (free without a key)" }) }),
  })
  .meta({ id: 'UploadConfig' });
export type UploadConfig = z.output<typeof uploadConfigSchema>;
