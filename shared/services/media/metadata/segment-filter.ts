import { Transform, type TransformCallback } from 'node:stream';
import { AppError } from '../../../errors.js';

/**
 * What a format's parser decides about the bytes at the head of the stream. Counts may run past the
 * bytes at hand: the filter carries them on into the next chunks. `insert` goes out first.
 */
export type Step =
  | { need: number } // decide again once this many bytes are at hand (always a small, bounded number)
  | { copy: number; insert?: Buffer } // pass on unchanged
  | { drop: number; insert?: Buffer } // leave out; Infinity: everything that follows
  | { blank: number; insert?: Buffer }; // replace by as many zero bytes

const ZEROS = Buffer.alloc(64 * 1024);

/**
 * A Transform that walks a container format's segments (JPEG markers, PNG chunks, RIFF chunks, GIF
 * blocks) and copies or leaves out each one whole. Only a segment's header, never the image data,
 * is held back, so memory stays bounded whatever the file's size.
 *
 * A file that ends early is passed on as far as it goes: every byte sent was already known to be
 * kept, and what was held back undecided is left out.
 */
export abstract class SegmentFilter extends Transform {
  #held: Buffer[] = [];
  #heldBytes = 0;
  #need = 0;
  #mode: 'copy' | 'drop' | 'blank' = 'copy';
  #left = 0;

  /** Looks at the head of the stream (at least one byte) and says what to do with it. */
  protected abstract decide(head: Buffer): Step;

  /** Where kept bytes go; a format that must patch its header later holds them back here. */
  protected output(bytes: Buffer): void {
    this.push(bytes);
  }

  /** Called once the input has ended, before the output ends. */
  protected finish(): void {}

  protected outputZeros(count: number): void {
    for (let left = count; left > 0; left -= ZEROS.length) this.output(ZEROS.subarray(0, Math.min(left, ZEROS.length)));
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
    try {
      this.#take(chunk);
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  override _flush(done: TransformCallback) {
    try {
      this.finish();
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  #take(chunk: Buffer) {
    let bytes = chunk;
    if (this.#heldBytes > 0) {
      this.#held.push(chunk);
      this.#heldBytes += chunk.length;
      if (this.#heldBytes < this.#need) return;
      bytes = Buffer.concat(this.#held, this.#heldBytes);
      this.#held = [];
      this.#heldBytes = 0;
    }
    let at = 0;
    while (at < bytes.length) {
      if (this.#left > 0) {
        const count = Math.min(this.#left, bytes.length - at);
        this.#pass(bytes.subarray(at, at + count));
        this.#left -= count;
        at += count;
        continue;
      }
      const step = this.decide(bytes.subarray(at));
      if ('need' in step) {
        // A copy, so a few held bytes do not pin a whole chunk.
        this.#held = [Buffer.from(bytes.subarray(at))];
        this.#heldBytes = bytes.length - at;
        this.#need = step.need;
        return;
      }
      if (step.insert) this.output(step.insert);
      if ('copy' in step) [this.#mode, this.#left] = ['copy', step.copy];
      else if ('drop' in step) [this.#mode, this.#left] = ['drop', step.drop];
      else [this.#mode, this.#left] = ['blank', step.blank];
    }
  }

  #pass(bytes: Buffer) {
    if (this.#mode === 'copy') this.output(bytes);
    else if (this.#mode === 'blank') this.outputZeros(bytes.length);
  }
}

/** The refusal of a file whose structure cannot be followed: passing it on could keep its metadata. */
export function unreadable(format: string, why: string): AppError {
  return AppError.badRequest(`Cannot remove the metadata of this ${format} file: ${why}`);
}
