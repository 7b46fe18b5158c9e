import sharp, { type Sharp, type SharpOptions } from 'sharp';
import { firstVideoFrame } from '../video-frame.js';

/** The renditions made of every thumbnailed file: WebP, the long side at most `edge` pixels. */
export const RENDITIONS = {
  small: { edge: 256, quality: 75 },
  preview: { edge: 1280, quality: 80 },
} as const;
export type RenditionName = keyof typeof RENDITIONS;
export const RENDITION_NAMES = Object.keys(RENDITIONS) as RenditionName[];

// Decompression bombs: libvips (and ffmpeg) read the dimensions from the header and refuse before decoding.
export const MAX_INPUT_PIXELS = 100_000_000;
const DECODE: SharpOptions = { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' };

export interface Rendition {
  data: Buffer;
  width: number;
  height: number;
}
export type Renditions = Record<RenditionName, Rendition>;

/**
 * Both renditions of the media in `file`: a still image (EXIF orientation applied), the first frame
 * of an animation, or a video's first frame through ffmpeg. Throws when the content cannot be decoded
 * or has more than MAX_INPUT_PIXELS.
 */
export async function renderThumbnails(file: string, kind: 'image' | 'video', signal?: AbortSignal): Promise<Renditions> {
  if (kind === 'image') {
    try {
      return await renditionsOf(sharp(file, DECODE));
    } catch (err) {
      // sharp's bundled libvips reads no BMP (among others); ffmpeg does.
      if (!/unsupported image format/i.test((err as Error).message)) throw err;
    }
  }
  return firstVideoFrame(file, { signal, maxPixels: MAX_INPUT_PIXELS }, (png) => renditionsOf(png.pipe(sharp(DECODE))));
}

async function renditionsOf(input: Sharp): Promise<Renditions> {
  const oriented = input.autoOrient();
  const made = await Promise.all(
    RENDITION_NAMES.map(async (name) => {
      const { edge, quality } = RENDITIONS[name];
      const { data, info } = await oriented
        .clone()
        .resize(edge, edge, { fit: 'inside', withoutEnlargement: true })
        .webp({ quality })
        .toBuffer({ resolveWithObject: true });
      return [name, { data, width: info.width, height: info.height }] as const;
    }),
  );
  return Object.fromEntries(made) as Renditions;
}
