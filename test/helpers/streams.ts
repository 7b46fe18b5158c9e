import { createHash } from 'node:crypto';
import { Readable, Writable } from 'node:stream';

/** `chunks` copies of one chunk, produced on demand (backpressure honoured), never held at once. */
export function repeatedStream(chunk: Buffer, chunks: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent === chunks) this.push(null);
      else {
        sent += 1;
        this.push(chunk);
      }
    },
  });
}

/** Emits `bytes` of data, then fails as a broken connection would. */
export function failingStream(bytes: number, chunkSize = 64 * 1024): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= bytes) {
        this.destroy(new Error('source failed midway'));
        return;
      }
      sent += chunkSize;
      this.push(Buffer.alloc(chunkSize, 1));
    },
  });
}

/** Consumes a stream into a SHA-256 and a byte count. */
export function hashSink(): Writable & { digest(): string; bytes: number } {
  const hash = createHash('sha256');
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      sink.bytes += chunk.length;
      done();
    },
  }) as Writable & { digest(): string; bytes: number };
  sink.bytes = 0;
  sink.digest = () => hash.digest('hex');
  return sink;
}

export function sha256Of(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The `Repr-Digest` field value (RFC 9530) an answer carrying exactly `data` must have. */
export function reprDigestOf(data: Buffer): string {
  return `sha-256=:${createHash('sha256').update(data).digest('base64')}:`;
}
