import sharp from 'sharp';
import { AppError } from '../../errors.js';
import type { StorageDriver } from '../../storage/index.js';

export interface ImageSize {
  width: number;
  height: number;
}

// Every format's dimensions sit in its first bytes (a JPEG's after its EXIF and ICC segments, 64 KiB at most each).
const HEAD_BYTES = 128 * 1024;
const MAX_REMEMBERED = 10_000;

/**
 * The displayed size of a stored image (EXIF orientation applied), read from the head of its object
 * alone, never the whole file. Object keys are immutable, so an answer is remembered for good.
 */
export class ImageSizeReader {
  private readonly sizes = new Map<string, ImageSize | null>();

  constructor(private readonly storage: StorageDriver) {}

  /** null: no such object, or not an image whose header can be read; 502 while storage fails (not remembered). */
  async of(key: string): Promise<ImageSize | null> {
    const known = this.sizes.get(key);
    if (known !== undefined) return known;
    const head = await this.headOf(key);
    if (!head) return null;
    const size = await sizeOf(head);
    if (this.sizes.size >= MAX_REMEMBERED) this.sizes.clear();
    this.sizes.set(key, size);
    return size;
  }

  private async headOf(key: string): Promise<Buffer | null> {
    try {
      const object = await this.storage.get(key, { start: 0, end: HEAD_BYTES - 1 });
      if (!object) return null;
      const chunks: Buffer[] = [];
      for await (const chunk of object.body) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).subarray(0, HEAD_BYTES);
    } catch (err) {
      throw AppError.storageUnavailable('Storage is briefly unavailable; retry', err);
    }
  }
}

async function sizeOf(head: Buffer): Promise<ImageSize | null> {
  try {
    const { autoOrient } = await sharp(head).metadata();
    if (autoOrient.width && autoOrient.height) return autoOrient;
  } catch {
    // libvips reads WebP and GIF headers only from whole files; their sizes are at fixed places.
  }
  return webpSize(head) ?? gifSize(head);
}

/** The canvas of a WebP (lossy VP8, lossless VP8L or extended VP8X). */
function webpSize(head: Buffer): ImageSize | null {
  if (head.length < 30 || head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WEBP') return null;
  const chunk = head.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return { width: 1 + head.readUIntLE(24, 3), height: 1 + head.readUIntLE(27, 3) };
  if (chunk === 'VP8 ') return { width: head.readUInt16LE(26) & 0x3fff, height: head.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L') {
    const bits = head.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) };
  }
  return null;
}

/** A GIF's logical screen. */
function gifSize(head: Buffer): ImageSize | null {
  if (head.length < 10 || !/^GIF8[79]a$/.test(head.toString('latin1', 0, 6))) return null;
  return { width: head.readUInt16LE(6), height: head.readUInt16LE(8) };
}
