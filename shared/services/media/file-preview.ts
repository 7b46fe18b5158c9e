import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';
import { withTempFile } from './media-source.js';
import { firstVideoFrame } from './video-frame.js';

/** What assistants accept for an image: the long edge at most 1568 px, a few hundred KB. */
export const PREVIEW_MAX_EDGE = 1568;
export const PREVIEW_MAX_BYTES = 400 * 1024;

export interface Preview {
  data: Buffer;
  mimeType: 'image/jpeg' | 'image/png';
}

/**
 * An image downscaled for an assistant to look at: JPEG (PNG when it has transparency), stepping the
 * quality and then the size down until it fits PREVIEW_MAX_BYTES. Animations give their first frame.
 */
export async function imagePreview(body: Readable, signal?: AbortSignal): Promise<Preview> {
  // Decoded straight to the largest size wanted, so a huge image never sits in memory at full size.
  const decoder = sharp({ failOn: 'none', limitInputPixels: 268_402_689 })
    .rotate()
    .resize(PREVIEW_MAX_EDGE, PREVIEW_MAX_EDGE, { fit: 'inside', withoutEnlargement: true })
    .raw();
  const [, source] = await Promise.all([pipeline(body, decoder, { signal }), decoder.toBuffer({ resolveWithObject: true })]);
  const hasAlpha = source.info.channels === 4;
  for (let edge = PREVIEW_MAX_EDGE; ; edge = Math.round(edge * 0.75)) {
    for (const quality of hasAlpha ? [0] : [82, 70, 55]) {
      const resized = sharp(source.data, { raw: source.info }).resize(edge, edge, { fit: 'inside', withoutEnlargement: true });
      const data = hasAlpha ? await resized.png({ compressionLevel: 9, palette: true }).toBuffer() : await resized.jpeg({ quality, mozjpeg: true }).toBuffer();
      if (data.length <= PREVIEW_MAX_BYTES || edge < 64) return { data, mimeType: hasAlpha ? 'image/png' : 'image/jpeg' };
    }
  }
}

/** One frame of a video, as a preview. */
export async function videoFramePreview(body: Readable, signal?: AbortSignal): Promise<Preview> {
  return withTempFile(body, signal, (file) => firstVideoFrame(file, { signal }, (png) => imagePreview(png, signal)));
}
