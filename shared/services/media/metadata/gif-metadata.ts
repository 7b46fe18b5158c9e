import { SegmentFilter, type Step, unreadable } from './segment-filter.js';

const EXTENSION = 0x21;
const IMAGE = 0x2c;
const TRAILER = 0x3b;
const COMMENT_LABEL = 0xfe;
const HEADER_SIZE = 13; // signature and version, logical screen descriptor
const IMAGE_DESCRIPTOR_SIZE = 10;

/**
 * Removes a GIF's comment extensions; everything else, the loop count (NETSCAPE2.0) included, is
 * copied as it is. Bytes after the trailer are left out. A file that is not a GIF, or whose blocks
 * cannot be followed, fails with a 400.
 */
export class GifMetadataStripper extends SegmentFilter {
  #state: 'start' | 'blocks' | 'copy-sub-blocks' | 'drop-sub-blocks' | 'end' = 'start';

  protected override decide(head: Buffer): Step {
    switch (this.#state) {
      case 'start': {
        if (head.length < HEADER_SIZE) return { need: HEADER_SIZE };
        const signature = head.toString('latin1', 0, 6);
        if (signature !== 'GIF87a' && signature !== 'GIF89a') throw unreadable('GIF', 'it does not start like a GIF');
        this.#state = 'blocks';
        return { copy: HEADER_SIZE + colourTableSize(head[10]!) };
      }
      case 'blocks':
        return this.#block(head);
      case 'end':
        return { drop: Number.POSITIVE_INFINITY };
      default: {
        // Data sub-blocks: a size byte, then that many bytes; a size of 0 ends the block. Every
        // sub-block whose size byte is at hand goes in one step (they are at most 256 bytes each).
        const keep = this.#state === 'copy-sub-blocks';
        let span = 0;
        while (span < head.length) {
          const size = head[span]!;
          span += 1 + size;
          if (size === 0) {
            this.#state = 'blocks';
            break;
          }
        }
        return keep ? { copy: span } : { drop: span };
      }
    }
  }

  #block(head: Buffer): Step {
    switch (head[0]) {
      case TRAILER:
        this.#state = 'end';
        return { copy: 1 };
      case IMAGE:
        if (head.length < IMAGE_DESCRIPTOR_SIZE) return { need: IMAGE_DESCRIPTOR_SIZE };
        this.#state = 'copy-sub-blocks';
        // the descriptor, its local colour table, the LZW minimum code size; then the image's sub-blocks
        return { copy: IMAGE_DESCRIPTOR_SIZE + colourTableSize(head[9]!) + 1 };
      case EXTENSION:
        if (head.length < 2) return { need: 2 };
        if (head[1] === COMMENT_LABEL) {
          this.#state = 'drop-sub-blocks';
          return { drop: 2 };
        }
        this.#state = 'copy-sub-blocks';
        return { copy: 2 };
      default:
        throw unreadable('GIF', 'a block has an unknown type');
    }
  }
}

/** Bytes of the colour table a packed-fields byte announces (its high bit: present; low 3 bits: size). */
function colourTableSize(packed: number): number {
  return packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0;
}
