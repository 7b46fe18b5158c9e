import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Agent, request } from 'node:http';

// PNG signature and a complete IHDR chunk (1x1, 8-bit RGB, with its CRC).
const PNG_HEAD = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de', 'hex');

/**
 * Pseudo-random bytes that start like a PNG: signature, IHDR, then an IDAT chunk holding the rest.
 * Type sniffing sees an image every time (random bytes where the next chunk header belongs made
 * half of the bodies unrecognisable, so whether uploads were moderated changed from run to run),
 * and the moderation service cannot decode the data, so it answers at once without inference.
 */
export function imageChunk(size: number, bodySize = size): Buffer {
  const chunk = randomBytes(size);
  PNG_HEAD.copy(chunk, 0);
  const idat = PNG_HEAD.length;
  // The IDAT holds the whole body the chunk is repeated into: the metadata stripper follows the PNG
  // chunk by chunk, and a second signature where a chunk header belongs would be refused (400).
  chunk.writeUInt32BE(bodySize - idat - 12, idat);
  chunk.write('IDAT', idat + 4, 'latin1');
  return chunk;
}

/**
 * POSTs a multipart body with one file part of `size` bytes, written from one reused chunk so the
 * client never holds the file. Resolves with the status and the elapsed milliseconds.
 */
export function multipartUpload(
  url: string,
  size: number,
  options: { key?: string; chunk: Buffer; agent?: Agent },
): Promise<{ status: number; ms: number; body: string }> {
  const boundary = `----hfsbench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.png"\r\nContent-Type: image/png\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: options.agent,
        headers: {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + size + tail.length,
          ...(options.key ? { 'x-api-key': options.key } : {}),
        },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, body }));
      },
    );
    req.on('error', reject);
    req.write(head);
    let sent = 0;
    const writeMore = () => {
      while (sent < size) {
        const part = options.chunk.subarray(0, Math.min(options.chunk.length, size - sent));
        sent += part.length;
        if (!req.write(part)) return void req.once('drain', writeMore);
      }
      req.end(tail);
    };
    writeMore();
  });
}

/** Runs `total` calls of `fn` with `concurrency` in flight; returns each call's milliseconds and the wall time. */
export async function concurrently(total: number, concurrency: number, fn: () => Promise<{ status: number; ms: number }>) {
  const latencies: number[] = [];
  let started = 0;
  let failures = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < total) {
        started += 1;
        const { status, ms } = await fn();
        if (status !== 200) failures += 1;
        latencies.push(ms);
      }
    }),
  );
  return { latencies, seconds: (performance.now() - began) / 1000, failures };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** The middle value, or the mean of the two middle ones. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Uploads the file at `file` with tus-js-client (Node), in PATCHes of `chunkSize` bytes read from
 * disk slice by slice. Resolves with the elapsed milliseconds and the upload's URL.
 */
export async function tusUpload(endpoint: string, file: string, options: { key: string; chunkSize: number }): Promise<{ ms: number; url: string }> {
  const { Upload } = await import('tus-js-client');
  // tus-js-client's own source for an fs.ReadStream reads each slice at fs's default 64 KiB, one
  // thread-pool round trip each: 300-550 MB/s on these two cores into a server that drops the bytes
  // (500-1250 MB/s with this one), so the client, not the service, set the figure. The same slices,
  // read 1 MiB at a time.
  const { size } = await (await import('node:fs/promises')).stat(file);
  const fileReader = {
    openFile: async () => ({
      size,
      slice: async (start: number, end: number) => {
        const stop = Math.min(end, size);
        const body = createReadStream(file, { start, end: stop - 1, highWaterMark: 1024 * 1024 });
        return { value: Object.assign(body, { size: stop - start }), done: stop >= size };
      },
      close: () => undefined,
    }),
  };
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const upload = new Upload(createReadStream(file), {
      endpoint,
      chunkSize: options.chunkSize,
      fileReader,
      retryDelays: [],
      headers: { 'x-api-key': options.key },
      metadata: { filename: 'bench.png' },
      onSuccess: () => resolve({ ms: performance.now() - started, url: upload.url! }),
      onError: reject,
    });
    upload.start();
  });
}
