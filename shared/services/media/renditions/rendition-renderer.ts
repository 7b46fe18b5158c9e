import type { Readable } from 'node:stream';
import sharp, { type Sharp } from 'sharp';
import { AppError } from '../../../errors.js';
import { type RenditionVariant, mayBeAnimated } from './rendition-params.js';

export interface RenditionLimits {
  /** pixels of all frames together; checked from the header, before anything is decoded */
  maxInputPixels: number;
  /** frames of an animation (each kept in the rendition) */
  maxFrames: number;
  /** libvips' own time limit on one rendition */
  timeoutSeconds: number;
}

// Formats that hold frames: an animation rendered as anything else would lose them.
const ANIMATED_OUTPUTS = new Set(['webp', 'gif']);

// The operation cache of libvips keeps decoded images for reuse: renditions are made once each.
sharp.cache(false);

/**
 * The image at `file`, checked from its header (no pixel is decoded yet), as a stream of the
 * rendition's bytes: oriented, at most `variant.width` wide (never wider than the original), in its
 * format, every frame of an animation kept, no metadata. Refusals are 422 before decoding; a decode
 * that fails or runs out of time makes the stream fail (see `refusalOf`).
 */
export async function renderRendition(file: string, mimeType: string, variant: RenditionVariant, limits: RenditionLimits): Promise<Readable> {
  const header = await sharp(file, { limitInputPixels: false, animated: mayBeAnimated(mimeType) })
    .metadata()
    .catch((err: Error) => {
      throw refusal(`The image cannot be read: ${err.message}`);
    });
  const frames = header.pages ?? 1;
  const frameHeight = header.pageHeight ?? header.height ?? 0;
  const pixels = (header.width ?? 0) * frameHeight * frames;
  if (frames > limits.maxFrames) throw refusal(`The animation has ${frames} frames; renditions are made of at most ${limits.maxFrames}`);
  if (pixels > limits.maxInputPixels) throw refusal(`The image has ${pixels} pixels; renditions are made of at most ${limits.maxInputPixels}`);
  const animated = frames > 1;
  if (animated && !ANIMATED_OUTPUTS.has(variant.format)) throw refusal('An animated image is rendered as webp (or as its own GIF), which keep its frames');

  let image: Sharp = sharp(file, { limitInputPixels: limits.maxInputPixels, failOn: 'error', animated, sequentialRead: true })
    .timeout({ seconds: limits.timeoutSeconds })
    .autoOrient();
  if (variant.width !== undefined) image = image.resize({ width: variant.width, withoutEnlargement: true });
  const quality = variant.quality;
  switch (variant.format) {
    case 'webp':
      return image.webp(quality ? { quality } : {});
    case 'avif':
      return image.avif(quality ? { quality } : {});
    case 'jpeg':
      return image.jpeg(quality ? { quality } : {});
    case 'png':
      // PNG is lossless: a quality asks for a quantised palette (smaller files, fewer colours).
      return image.png(quality ? { palette: true, quality } : {});
    case 'gif':
      return image.gif();
  }
}

/** What a failed rendering stream means for the request: a 422 naming the limit or the fault in the content. */
export function refusalOf(err: Error): AppError {
  if (/timeout/i.test(err.message)) return refusal('Making this rendition took too long');
  if (/pixel limit/i.test(err.message)) return refusal('The image is larger than renditions are made of');
  return refusal(`The image cannot be decoded: ${err.message}`);
}

function refusal(message: string): AppError {
  return new AppError(422, 'unprocessable_image', message);
}
