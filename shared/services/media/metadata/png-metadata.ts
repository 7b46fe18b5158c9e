import { SegmentFilter, type Step, unreadable } from './segment-filter.js';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** EXIF, text (XMP lives in iTXt) and the modification time; every other chunk decodes the image or describes its colour. */
const DROPPED = new Set(['eXIf', 'tEXt', 'zTXt', 'iTXt', 'tIME']);
const MAX_CHUNK_LENGTH = 0x7fffffff;

/**
 * Removes a PNG's (and APNG's) metadata chunks; every other chunk is copied whole, CRC included.
 * Bytes after IEND are left out. A file that is not a PNG, or whose chunk headers are damaged,
 * fails with a 400.
 */
export class PngMetadataStripper extends SegmentFilter {
  #state: 'start' | 'chunks' | 'end' = 'start';

  protected override decide(head: Buffer): Step {
    if (this.#state === 'end') return { drop: Number.POSITIVE_INFINITY };
    if (this.#state === 'start') {
      if (head.length < SIGNATURE.length) return { need: SIGNATURE.length };
      if (!head.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw unreadable('PNG', 'it does not start like a PNG');
      this.#state = 'chunks';
      return { copy: SIGNATURE.length };
    }
    if (head.length < 8) return { need: 8 };
    const length = head.readUInt32BE(0);
    const type = head.toString('latin1', 4, 8);
    if (length > MAX_CHUNK_LENGTH || !/^[A-Za-z]{4}$/.test(type)) throw unreadable('PNG', 'a chunk header is damaged');
    const size = 12 + length; // length, type, data, CRC
    if (type === 'IEND') this.#state = 'end';
    return DROPPED.has(type) ? { drop: size } : { copy: size };
  }
}
