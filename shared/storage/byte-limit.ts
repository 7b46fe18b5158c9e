import type { Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { AppError } from '../errors.js';

const STREAM_HWM = 1024 * 1024;

/**
 * Passes bytes through and fails the pipeline the moment more than `maxBytes` have passed; feeds
 * `hash`, when given, with what passes (in this hop, not one more).
 */
export class ByteLimit extends Transform {
  bytes = 0;

  constructor(
    private readonly maxBytes = Number.POSITIVE_INFINITY,
    private readonly hash?: Hash,
  ) {
    // Large buffers: every hop of a big upload passes fewer, larger chunks.
    super({ highWaterMark: STREAM_HWM });
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      done(tooLarge(this.maxBytes));
      return;
    }
    this.hash?.update(chunk);
    done(null, chunk);
  }
}

/** The refusal of a body that passed its ceiling (413). */
export function tooLarge(maxBytes: number): AppError {
  return AppError.tooLarge(`File is larger than the limit of ${maxBytes} bytes`);
}
