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

/** A JPEG's head as a phone writes it, minus the pixels: JFIF, EXIF with Orientation 6 and a GPS IFD, a comment, a scan header. */
function jpegHead(): Buffer {
  const tiff = Buffer.alloc(56);
  tiff.write('MM', 0, 'latin1');
  tiff.writeUInt16BE(42, 2);
  tiff.writeUInt32BE(8, 4);
  tiff.writeUInt16BE(2, 8); // IFD0: Orientation, GPS pointer
  tiff.writeUInt16BE(0x0112, 10);
  tiff.writeUInt16BE(3, 12);
  tiff.writeUInt32BE(1, 14);
  tiff.writeUInt16BE(6, 18);
  tiff.writeUInt16BE(0x8825, 22);
  tiff.writeUInt16BE(4, 24);
  tiff.writeUInt32BE(1, 26);
  tiff.writeUInt32BE(38, 30);
  tiff.writeUInt16BE(1, 38); // GPS IFD: GPSLatitudeRef "N"
  tiff.writeUInt16BE(1, 40);
  tiff.writeUInt16BE(2, 42);
  tiff.writeUInt32BE(2, 44);
  tiff.write('N', 48, 'latin1');
  const segment = (marker: number, payload: Buffer) => {
    const header = Buffer.from([0xff, marker, 0, 0]);
    header.writeUInt16BE(2 + payload.length, 2);
    return Buffer.concat([header, payload]);
  };
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, Buffer.from('4a46494600010100000100010000', 'hex')),
    segment(0xe1, Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff])),
    segment(0xfe, Buffer.from('bench', 'latin1')),
    segment(0xda, Buffer.from('010100003f00', 'hex')),
  ]);
}

/**
 * A JPEG-typed body: `head` (the metadata a phone writes), then `chunk` repeated as entropy-coded
 * data: random bytes in which every 0xFF is stuffed with 0x00, as in a real scan (one every 256
 * bytes), so the metadata stripper walks the scan as it would a photo's.
 */
export function jpegBody(size: number): { head: Buffer; chunk: Buffer } {
  const chunk = randomBytes(size);
  for (let at = chunk.indexOf(0xff); at >= 0 && at < size - 1; at = chunk.indexOf(0xff, at + 2)) chunk[at + 1] = 0;
  if (chunk[size - 1] === 0xff) chunk[size - 1] = 0;
  return { head: jpegHead(), chunk };
}

/**
 * A decodable JPEG of about `bytes` (the closest a JPEG quality gets), `width` wide and 2/3 as high:
 * soft colour blobs with a fine grain, as a photo compresses, so moderation, thumbnails and
 * renditions decode and resize real pixels. Every call draws new pixels.
 */
export async function realJpeg(bytes: number, width = 1280): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  const height = Math.round((width * 2) / 3);
  const noise = (w: number, h: number, sigma: number) =>
    sharp({ create: { width: w, height: h, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma } } });
  const blobs = await sharp(await noise(40, 27, 60).png().toBuffer()).resize(width, height, { kernel: 'cubic' }).raw().toBuffer();
  const grain = await noise(width, height, 4).raw().toBuffer();
  const pixels = Buffer.alloc(blobs.length);
  for (let i = 0; i < pixels.length; i++) pixels[i] = Math.max(0, Math.min(255, blobs[i]! + grain[i]! - 128));
  const encode = (quality: number) => sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality }).toBuffer();
  // The size grows with the quality: the quality whose size is closest to the one asked for.
  let [low, high] = [10, 95];
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if ((await encode(mid)).length <= bytes) low = mid;
    else high = mid;
  }
  const [below, above] = await Promise.all([encode(low), encode(high)]);
  return Math.abs(below.length - bytes) <= Math.abs(above.length - bytes) ? below : above;
}

/**
 * POSTs a multipart body with one file part of `size` bytes — `fileHead`, if given, then one reused
 * chunk — so the client never holds the file. Resolves with the status and the elapsed milliseconds.
 */
export function multipartUpload(
  url: string,
  size: number,
  options: { key?: string; chunk: Buffer; fileHead?: Buffer; type?: 'png' | 'jpeg'; agent?: Agent },
): Promise<{ status: number; ms: number; body: string }> {
  const boundary = `----hfsbench${randomBytes(8).toString('hex')}`;
  const type = options.type ?? 'png';
  const fileHead = options.fileHead ?? Buffer.alloc(0);
  const head = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.${type}"\r\nContent-Type: image/${type}\r\n\r\n`),
    fileHead,
  ]);
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
          'content-length': head.length - fileHead.length + size + tail.length,
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
    let sent = fileHead.length;
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

/**
 * A plain GET, as wrk sends it. Not fetch(): it adds `Cache-Control: no-cache` to conditional
 * requests, and the service rightly answers those with the whole file.
 */
export function get(url: string, headers: Record<string, string> = {}, agent?: false): Promise<{ status: number; headers: Record<string, string | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, ...(agent === false ? { agent } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string | undefined>, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
