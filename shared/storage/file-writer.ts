import type { Hash } from 'node:crypto';
import { close, open, writev } from 'node:fs';
import { promisify } from 'node:util';
import { Writable } from 'node:stream';
import { tooLarge } from './byte-limit.js';

// Every write is a thread-pool round trip: a small upload goes to disk in one writev, not one per socket read.
const GATHER_BYTES = 128 * 1024;

/**
 * A new file as a Writable that writes behind its input: a chunk is accepted at once while less
 * than `ahead` bytes wait for the disk, so the sender keeps being read while the previous batch is
 * being written. (fs.WriteStream holds its input back until every byte it took has been written,
 * which leaves the reading thread and the writing one taking turns.) At most one write is in flight;
 * what arrives meanwhile is written next, in one writev. A write starts once `GATHER_BYTES` wait (or
 * the input has ended), so a small upload goes to disk in one writev rather than one per socket read.
 * It counts what it takes and fails (413) the moment more than `maxBytes` arrived, and feeds `hash`
 * (when given) with it: a counting or hashing stream in front of it was one more hop per chunk.
 */
export class FileWriter extends Writable {
  /** Whether this writer created the file (the open succeeded): only then is it its to remove. */
  created = false;
  /** Bytes taken so far. */
  bytes = 0;
  private fd: number | undefined;
  private queued: Buffer[] = [];
  /** Bytes taken and not yet written: `queued` and the write in flight. */
  private queuedBytes = 0;
  /** Bytes in `queued`, which no write holds yet. */
  private waitingBytes = 0;
  private ended = false;
  private readonly gather: number;
  private inFlight: Promise<void> | undefined;
  private failure: Error | undefined;
  private heldBack: ((err?: Error | null) => void) | undefined;

  constructor(
    private readonly path: string,
    private readonly ahead: number,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
    /** 'wx' creates a new file; 'a' continues an existing one (a resumable upload's next part). */
    private readonly flags: 'wx' | 'a' = 'wx',
    private readonly hash?: Hash,
  ) {
    // Backpressure comes from `ahead`: the stream's own buffer only holds a chunk held back.
    super({ highWaterMark: 64 * 1024 });
    // Never wait for more than may be taken ahead: the sender would be held back with nothing written.
    this.gather = Math.min(GATHER_BYTES, ahead);
  }

  override _construct(callback: (err?: Error | null) => void) {
    // 'wx': a key is written once; an existing file is never overwritten.
    open(this.path, this.flags, (err, fd) => {
      if (err) return callback(err);
      this.fd = fd;
      this.created = this.flags === 'wx';
      callback();
    });
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, callback: (err?: Error | null) => void) {
    if (this.failure) return callback(this.failure);
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return callback(tooLarge(this.maxBytes));
    this.hash?.update(chunk);
    this.queued.push(chunk);
    this.queuedBytes += chunk.length;
    this.waitingBytes += chunk.length;
    this.pump();
    if (this.queuedBytes < this.ahead) callback();
    else this.heldBack = callback;
  }

  override _final(callback: (err?: Error | null) => void) {
    this.ended = true;
    this.pump();
    this.settled().then(() => this.closeFile()).then(() => callback(), callback);
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void) {
    // Wait for the write in flight (no other starts once destroyed): the descriptor must not be
    // closed under it, and the file must be closed before anyone removes it.
    this.drained()
      .then(() => this.closeFile())
      .then(() => callback(err), () => callback(err));
  }

  private async closeFile(): Promise<void> {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) await closeFd(fd);
  }

  /** Resolves once no write is in flight (a finished write may start the next one). */
  private async drained(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  /** Resolves once everything queued is on disk; rejects with the first write error. */
  private async settled(): Promise<void> {
    await this.drained();
    if (this.failure) throw this.failure;
  }

  private pump() {
    if (this.inFlight || this.failure || this.destroyed || this.queued.length === 0) return;
    if (!this.ended && this.waitingBytes < this.gather) return;
    const batch = this.queued;
    const bytes = this.waitingBytes;
    this.queued = [];
    this.waitingBytes = 0;
    this.inFlight = writeAll(this.fd!, batch).then(
      () => {
        this.queuedBytes -= bytes;
        this.inFlight = undefined;
        this.release();
        this.pump();
      },
      (err: Error) => {
        this.failure = err;
        this.inFlight = undefined;
        // Fail the stream now, not at its next chunk: the sender may be slow to send one.
        if (this.heldBack) this.release(err);
        else this.destroy(err);
      },
    );
  }

  private release(err?: Error) {
    if (!this.heldBack || (!err && this.queuedBytes >= this.ahead)) return;
    const callback = this.heldBack;
    this.heldBack = undefined;
    callback(err);
  }
}

const closeFd = promisify(close);
const writevFd = promisify(writev);

/** writev until every byte is written (a write may take only part of what it was given). */
async function writeAll(fd: number, buffers: Buffer[]): Promise<void> {
  let rest = buffers;
  while (rest.length > 0) rest = skipBytes(rest, (await writevFd(fd, rest)).bytesWritten);
}

function skipBytes(buffers: Buffer[], count: number): Buffer[] {
  let skipped = count;
  let i = 0;
  while (i < buffers.length && skipped >= buffers[i]!.length) skipped -= buffers[i++]!.length;
  const rest = buffers.slice(i);
  if (skipped > 0) rest[0] = rest[0]!.subarray(skipped);
  return rest;
}
