import type { IncomingMessage } from 'node:http';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import multer from '@koa/multer';
import { z } from 'zod';
import { AppError, isAppError } from '../../shared/errors.js';
import { safeFetch } from '../../shared/net/safe-fetch.js';
import { validate } from '../../shared/validation.js';
import type { AppContext } from '../state.js';
import { isMalformedBody } from '../upload/body-errors.js';
import { parseMultipart } from '../upload/parse-multipart.js';
import { receiveToFile } from './media.js';

export interface IntakeOptions {
  dir: string;
  maxBytes: number;
  fetchTimeoutMs: number;
  allowedOrigins: readonly string[];
}

const intakeFailed = () => new AppError(500, 'intake_failed', 'Receiving the media failed');

/** Multer engine that streams the part into a temp file (size-limited), never into memory. */
class TempFileStorage implements multer.StorageEngine {
  constructor(private readonly options: IntakeOptions) {}

  _handleFile(_req: IncomingMessage, file: multer.File, callback: (error?: unknown, info?: multer.File) => void) {
    const { stream } = file as multer.File & { stream: Readable };
    receiveToFile(stream, this.options.dir, this.options.maxBytes).then(
      (path) => callback(null, { path } as multer.File),
      // A part cut short is the sender's mistake (400); a disk failure is ours (500).
      (err: unknown) =>
        callback(
          isAppError(err) ? err
          : isMalformedBody(err) ? AppError.badRequest('The multipart body is malformed or cut short')
          : intakeFailed(),
        ),
    );
  }

  _removeFile(_req: IncomingMessage, file: multer.File, callback: (error: Error) => void) {
    rm(file.path, { force: true }).then(() => (callback as (e: Error | null) => void)(null), callback);
  }
}

const urlSchema = z.object({ url: z.url({ protocol: /^https?$/, error: 'url must be an http or https URL' }) });

/**
 * The media of a moderation request, as a temp file: multipart field `file`, or JSON `{url}`
 * fetched with the same SSRF-safe client as URL uploads. The caller removes the file.
 */
export async function receiveMedia(ctx: AppContext, options: IntakeOptions): Promise<string> {
  if (ctx.is('multipart')) {
    const storage = new TempFileStorage(options);
    await parseMultipart(ctx, multer({ storage, limits: { files: 1, fields: 5, parts: 6 } }).single('file'), intakeFailed);
    const file = (ctx as unknown as { file?: multer.File }).file;
    if (!file) throw AppError.badRequest('No file: send the media in the multipart field "file"');
    return file.path;
  }
  const { url } = validate(urlSchema, ctx.request.body);
  const response = await safeFetch(url, { timeoutMs: options.fetchTimeoutMs, allowedOrigins: options.allowedOrigins });
  if (response.contentLength !== undefined && response.contentLength > options.maxBytes) {
    response.body.destroy();
    throw AppError.tooLarge(`The media is larger than ${options.maxBytes} bytes`);
  }
  return receiveToFile(response.body, options.dir, options.maxBytes);
}
