import type { FileRow } from '../../shared/db/schema.js';
import { AppError } from '../../shared/errors.js';
import type { FileUrls } from '../../shared/services/file-urls.js';
import type { ByteRange } from '../../shared/storage/index.js';
import type { HostedFileService } from '../../shared/services/hosted-file.service.js';
import type { AppContext } from '../state.js';

/** Parses a single-range `Range` header; undefined = serve everything, 'unsatisfiable' = 416. */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Multiple or malformed ranges may be ignored (RFC 9110 §14.2): the whole file is a valid answer.
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  // last < first makes the range invalid, and an invalid Range is ignored, like a malformed one.
  if (match[2] !== '' && Number(match[2]) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end: match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1) };
}

/** Object keys never change content, so the key is a strong validator of the bytes. */
export function etagOf(file: FileRow): string {
  return `"${file.objectKey.slice(file.objectKey.lastIndexOf('/') + 1)}"`;
}

// Types a browser could execute or render as a document of the site's origin: pages, scripts, any
// XML (XSLT can make a page of it), archived pages (MHTML) and PDF. SVG is image/… and stays viewable.
const DOCUMENT_TYPES = /^(?:text\/(?:html|xml|xsl|javascript)|application\/(?:xml|javascript|x-javascript|pdf|[\w.+-]+\+xml)|message\/|multipart\/)/i;
// Every hosted file is sandboxed: even if a browser renders one, no script runs with the site's origin.
const SANDBOX_CSP = "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'";

export type FileSender = (ctx: AppContext, file: FileRow) => Promise<void>;

/** Streams a hosted file with the headers browsers, caches and download tools rely on. */
export function fileSender(hosted: HostedFileService, urls: FileUrls, cacheControlPublic: string): FileSender {
  return async (ctx, file) => {
    if (file.isPrivate && !urls.verifyPrivateLink(file, ctx.query.expires, ctx.query.signature)) {
      throw AppError.notFound('File not found');
    }
    const etag = etagOf(file);
    ctx.set('ETag', etag);
    ctx.set('Last-Modified', (file.updatedAt ?? file.createdAt).toUTCString());
    ctx.set('Accept-Ranges', 'bytes');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', SANDBOX_CSP);
    ctx.set('Cache-Control', file.isPrivate ? 'private, no-store' : cacheControlPublic);
    if (DOCUMENT_TYPES.test(file.mimeType)) {
      // Documents and scripts are downloaded, never rendered; SVG stays viewable, sandboxed by the CSP.
      ctx.attachment(file.filename, { type: 'attachment' });
    }
    // Koa's freshness check: If-None-Match (weak comparison, `*`), else If-Modified-Since.
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    const range = parseRange(ctx.get('range') || undefined, file.size);
    if (range === 'unsatisfiable') {
      ctx.status = 416;
      ctx.set('Content-Range', `bytes */${file.size}`);
      ctx.body = '';
      return;
    }
    ctx.type = file.mimeType;
    if (ctx.method === 'HEAD') {
      ctx.status = 200;
      ctx.length = file.size;
      return;
    }
    const { body, size } = await hosted.open(file, range);
    ctx.status = range ? 206 : 200;
    if (range) ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
    ctx.body = body;
    ctx.length = range ? range.end - range.start + 1 : size;
  };
}
