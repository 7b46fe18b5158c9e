import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/client';
import * as tus from 'tus-js-client';
import { imageChunk } from '../load.js';
import type { UploadResult } from './client.js';
import { every, pickOf, type SoakContext } from './context.js';
import type { SoakAccount } from './ledger.js';

const TUS_CHUNK = 256 * 1024;
// Brought-forward expiries fall due this many seconds after their upload (at random within).
const DUE_SECONDS = [20, 60] as const;

let sequence = 0;

/**
 * A JPEG of the pool made unique by the last two (highest-frequency) steps of its first quantisation
 * table: metadata removal keeps the table, decoders decode it, and no two uploads store the same bytes,
 * so a file served in another's place shows in its digest. 65,025 variants, one per upload.
 */
export function uniqueJpeg(ctx: SoakContext): Buffer {
  const jpeg = Buffer.from(pickOf(ctx.images));
  let at = 2;
  while (at + 4 < jpeg.length && !(jpeg[at] === 0xff && jpeg[at + 1] === 0xdb)) at += 2 + jpeg.readUInt16BE(at + 2);
  if (at + 4 >= jpeg.length) throw new Error('a pool image has no quantisation table');
  // After the marker, its length and the table's precision/id byte: 64 one-byte steps, zigzag order.
  const steps = at + 5;
  sequence += 1;
  jpeg[steps + 62] = 1 + (sequence % 255);
  jpeg[steps + 63] = 1 + (Math.floor(sequence / 255) % 255);
  return jpeg;
}

/** Random bytes behind a PNG's header: an image by type that nothing can decode (moderation answers at once). */
function noisePng(min: number, max: number): Buffer {
  return imageChunk(min + Math.floor(Math.random() * (max - min)));
}

/**
 * Multipart uploads, once a second: three JPEGs to one PNG of noise; every sixth with expiry 1h,
 * brought forward to fall due within the run.
 */
export function multipartUploads(ctx: SoakContext): Promise<void> {
  let n = 0;
  return every(ctx, 'upload-multipart', 1000, async () => {
    n += 1;
    const account = pickOf(ctx.accounts);
    const image = n % 4 !== 0;
    const bytes = image ? uniqueJpeg(ctx) : noisePng(20_000, 120_000);
    const expiring = n % 6 === 0 && Date.now() + (DUE_SECONDS[1] + 30) * 1000 < ctx.endsAt;
    const form = new FormData();
    if (expiring) form.append('expiry', '1h');
    form.append('file', new Blob([new Uint8Array(bytes)]), image ? `photo-${n}.jpg` : `noise-${n}.png`);
    const res = await ctx.client.call('upload-multipart', `${ctx.client.web()}/api/upload?format=json`, { method: 'POST', key: account.apiKey, body: form });
    if (!res?.ok) return;
    const result = (JSON.parse(res.body.toString()) as { data: UploadResult }).data;
    const dueAt = expiring ? await bringExpiryForward(ctx, account, result.filename) : undefined;
    ctx.client.accepted(account, result, bytes, image, dueAt ? { dueAt } : {});
  });
}

/**
 * Makes a file with expiry 1h fall due in 20–60 s, as the expiry tests do: its row's expires_at and
 * its delayed job's delay (the minute sweep is the net should the job be missing).
 */
async function bringExpiryForward(ctx: SoakContext, account: SoakAccount, filename: string): Promise<number> {
  const seconds = DUE_SECONDS[0] + Math.random() * (DUE_SECONDS[1] - DUE_SECONDS[0]);
  const { rows } = await ctx.db.query<{ id: string; due: Date }>(
    'update files set expires_at = now() + make_interval(secs => $3) where account_id = $1 and filename = $2 returning id, expires_at as due',
    [account.id, filename, seconds],
  );
  const job = rows[0] && (await ctx.jobs.queue('expiry').getJob(`expire-${rows[0].id}`));
  if (job) await job.changeDelay(Math.max(0, rows[0]!.due.getTime() - Date.now()));
  return rows[0]?.due.getTime() ?? Date.now();
}

interface TusRun {
  upload: tus.Upload;
  done: Promise<void>;
}

/** A tus-js-client upload of `bytes`, started; `stopAfter`: aborted once that many bytes are in. */
function startTus(endpoint: string, bytes: Buffer, options: { key: string; uploadUrl?: string; stopAfter?: number }): TusRun {
  let upload!: tus.Upload;
  const done = new Promise<void>((resolve, reject) => {
    upload = new tus.Upload(bytes, {
      endpoint,
      ...(options.uploadUrl ? { uploadUrl: options.uploadUrl } : {}),
      chunkSize: TUS_CHUNK,
      retryDelays: [],
      headers: { 'x-api-key': options.key },
      metadata: { filename: 'resumable.png' },
      onProgress: (sent) => {
        if (options.stopAfter !== undefined && sent >= options.stopAfter) void upload.abort().then(resolve);
      },
      onSuccess: () => resolve(),
      onError: reject,
    });
  });
  upload.start();
  return { upload, done };
}

/**
 * tus uploads of 1–2.5 MB in 256 KiB PATCHes, every 8 s; every third is aborted after two PATCHes
 * and resumed on the other web process from the offset it reports.
 */
export function tusUploads(ctx: SoakContext): Promise<void> {
  let n = 0;
  return every(ctx, 'upload-tus', 8000, async () => {
    n += 1;
    const account = pickOf(ctx.accounts);
    const bytes = noisePng(1_000_000, 2_500_000);
    const web = ctx.client.web();
    const interrupted = n % 3 === 0;
    const route = interrupted ? 'upload-tus-resumed' : 'upload-tus';
    const began = performance.now();
    let url: string;
    try {
      const first = startTus(`${web}/api/uploads`, bytes, { key: account.apiKey, ...(interrupted ? { stopAfter: 2 * TUS_CHUNK } : {}) });
      await first.done;
      url = ctx.client.on(first.upload.url!, web);
      if (interrupted) {
        const other = ctx.client.otherThan(web);
        url = ctx.client.on(url, other);
        await startTus(`${other}/api/uploads`, bytes, { key: account.apiKey, uploadUrl: url }).done;
      }
    } catch (err) {
      const status = (err as tus.DetailedError).originalResponse?.getStatus() ?? 0;
      ctx.recorder.request(route, status, performance.now() - began, false, (err as Error).message);
      return;
    }
    ctx.recorder.request(route, 200, performance.now() - began, true);
    const res = await ctx.client.call('upload-tus-result', `${url}/result`, { key: account.apiKey });
    if (res?.ok) ctx.client.accepted(account, (JSON.parse(res.body.toString()) as { data: UploadResult }).data, bytes, false);
  });
}

/** A loopback origin the service fetches URL uploads from: each offered body at a path of its own. */
export class ImageOrigin {
  private readonly bodies = new Map<string, Buffer>();
  private next = 0;

  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(): Promise<ImageOrigin> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = new ImageOrigin(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req, res) => {
      const body = origin.bodies.get(req.url ?? '');
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': body.length }).end(body);
    });
    return origin;
  }

  offer(body: Buffer): string {
    const path = `/img/${++this.next}.jpg`;
    this.bodies.set(path, body);
    return `${this.origin}${path}`;
  }

  withdraw(url: string): void {
    this.bodies.delete(new URL(url).pathname);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** URL uploads from the loopback origin, every 5 s. */
export function urlUploads(ctx: SoakContext, origin: ImageOrigin): Promise<void> {
  return every(ctx, 'upload-url', 5000, async () => {
    const account = pickOf(ctx.accounts);
    const bytes = uniqueJpeg(ctx);
    const imageUrl = origin.offer(bytes);
    try {
      const res = await ctx.client.call('upload-url', `${ctx.client.web()}/api/upload/url`, { method: 'POST', key: account.apiKey, json: { imageUrl } });
      if (res?.ok) ctx.client.accepted(account, (JSON.parse(res.body.toString()) as { data: UploadResult }).data, bytes, true);
    } finally {
      origin.withdraw(imageUrl);
    }
  });
}

/** MCP `upload_file` (base64 in the call) every 8 s, by an assistant signed in with OAuth as `account`. */
export function mcpUploads(ctx: SoakContext, account: SoakAccount, clients: Client[]): Promise<void> {
  let n = 0;
  return every(ctx, 'upload-mcp', 8000, async () => {
    n += 1;
    const bytes = uniqueJpeg(ctx);
    const began = performance.now();
    try {
      const result = await clients[n % clients.length]!.callTool({ name: 'upload_file', arguments: { filename: `assistant-${n}.jpg`, contentBase64: bytes.toString('base64') } });
      const ms = performance.now() - began;
      if (result.isError) {
        ctx.recorder.request('upload-mcp', 400, ms, false, JSON.stringify(result.content).slice(0, 200));
        return;
      }
      ctx.recorder.request('upload-mcp', 200, ms, true);
      ctx.client.accepted(account, result.structuredContent as unknown as UploadResult, bytes, true);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      ctx.recorder.request('upload-mcp', typeof code === 'number' && code >= 400 ? code : 0, performance.now() - began, false, (err as Error).message);
    }
  });
}
