import { SegmentFilter, type Step, unreadable } from './segment-filter.js';

const METADATA = new Set(['EXIF', 'XMP ']);
const VP8X_METADATA_FLAGS = 0x08 | 0x04; // EXIF and XMP present
const VP8X_SIZE = 8 + 10;
const RIFF_HEADER_SIZE = 12;

/** WebP files up to this size lose their metadata chunks outright; larger ones have them blanked. */
const WEBP_HOLD_BYTES = 16 * 1024 * 1024;

/**
 * Removes a WebP's EXIF and XMP chunks and clears their flags in VP8X; every other chunk is copied
 * whole. The RIFF size at the very start must then shrink by what was removed, which is known only
 * once the metadata (stored after the image data) has gone by, so the output is held back until the
 * input ends, for files up to `holdBytes`. Past that, memory stays bounded: what was held goes out
 * with the original RIFF size and every metadata chunk becomes a JUNK chunk of zeros of the same
 * size (RIFF's padding chunk, which readers skip), so the metadata is gone but its room is not.
 * Bytes after the RIFF's declared end are left out. A file that is not a WebP fails with a 400.
 */
export class WebpMetadataStripper extends SegmentFilter {
  #state: 'start' | 'chunks' | 'end' = 'start';
  #header = Buffer.alloc(0);
  #riffEnd = 0;
  #offset = 0;
  #holding = true;
  /** Output waiting for its RIFF size; a number is the data size of a metadata chunk left out. */
  #held: (Buffer | number)[] = [];
  #blankNext = 0;

  constructor(private readonly holdBytes = WEBP_HOLD_BYTES) {
    super();
  }

  protected override output(bytes: Buffer): void {
    if (this.#holding) this.#held.push(bytes);
    else this.push(bytes);
  }

  protected override decide(head: Buffer): Step {
    if (this.#state === 'end') return { drop: Number.POSITIVE_INFINITY };
    if (this.#state === 'start') {
      if (head.length < RIFF_HEADER_SIZE) return { need: RIFF_HEADER_SIZE };
      if (head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WEBP') {
        throw unreadable('WebP', 'it does not start like a WebP');
      }
      this.#header = Buffer.from(head.subarray(0, RIFF_HEADER_SIZE));
      this.#riffEnd = 8 + head.readUInt32LE(4);
      this.#offset = RIFF_HEADER_SIZE;
      this.#state = 'chunks';
      return { drop: RIFF_HEADER_SIZE }; // sent with its size once that is known
    }
    if (this.#blankNext > 0) {
      const count = this.#blankNext;
      this.#blankNext = 0;
      return { blank: count };
    }
    if (this.#offset >= this.#riffEnd) {
      this.#state = 'end';
      return { drop: Number.POSITIVE_INFINITY };
    }
    if (head.length < 8) return { need: 8 };
    const fourcc = head.toString('latin1', 0, 4);
    const size = head.readUInt32LE(4);
    if (fourcc === 'VP8X' && head.length < VP8X_SIZE) return { need: VP8X_SIZE };
    const padded = size + (size & 1);
    this.#offset += 8 + padded;
    if (this.#holding && this.#offset > this.holdBytes) this.#release();
    if (fourcc === 'VP8X') {
      if (size !== VP8X_SIZE - 8) throw unreadable('WebP', 'its VP8X chunk is damaged');
      const vp8x = Buffer.from(head.subarray(0, VP8X_SIZE));
      vp8x[8] = vp8x[8]! & ~VP8X_METADATA_FLAGS;
      return { drop: VP8X_SIZE, insert: vp8x };
    }
    if (!METADATA.has(fourcc)) return { copy: 8 + padded };
    if (this.#holding) {
      this.#held.push(size);
      return { drop: 8 + padded };
    }
    this.#blankNext = padded;
    return { drop: 8, insert: junkHeader(size) };
  }

  protected override finish(): void {
    if (!this.#holding || this.#header.length === 0) return;
    const kept = this.#held.filter((part): part is Buffer => typeof part !== 'number');
    this.#header.writeUInt32LE(kept.reduce((total, part) => total + part.length, 4), 4);
    this.#holding = false;
    this.push(this.#header);
    for (const part of kept) this.push(part);
  }

  /** The file outgrew the hold: send what was held with the original size, metadata blanked. */
  #release() {
    this.#holding = false;
    this.push(this.#header);
    for (const part of this.#held) {
      if (typeof part !== 'number') {
        this.push(part);
        continue;
      }
      this.push(junkHeader(part));
      this.outputZeros(part + (part & 1));
    }
    this.#held = [];
  }
}

function junkHeader(size: number): Buffer {
  const header = Buffer.from('JUNK\0\0\0\0', 'latin1');
  header.writeUInt32LE(size, 4);
  return header;
}
