import type { Transform } from 'node:stream';
import { GifMetadataStripper } from './gif-metadata.js';
import { JpegMetadataStripper } from './jpeg-metadata.js';
import { PngMetadataStripper } from './png-metadata.js';
import { WebpMetadataStripper } from './webp-metadata.js';

// Keyed by the type sniffed from the bytes (file-type's names), never by what the client claimed.
const STRIPPERS: Record<string, () => Transform> = {
  'image/jpeg': () => new JpegMetadataStripper(),
  'image/png': () => new PngMetadataStripper(),
  'image/apng': () => new PngMetadataStripper(),
  'image/webp': () => new WebpMetadataStripper(),
  'image/gif': () => new GifMetadataStripper(),
};

/**
 * A fresh Transform that removes the metadata of a file of this type as it streams through,
 * leaving the image data byte for byte; undefined for types it does not handle. It fails the
 * pipeline with a 400 AppError when the bytes are not of that type or cannot be followed.
 */
export function metadataStripperFor(mime: string): Transform | undefined {
  return STRIPPERS[mime]?.();
}
