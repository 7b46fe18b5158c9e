import contentDisposition from 'content-disposition';
import { contentType } from 'mime-types';
import type { Config } from '../../shared/config.js';
import type { FileRow } from '../../shared/db/schema.js';
import { AppError } from '../../shared/errors.js';
import type { FileUrls } from '../../shared/services/files/file-urls.js';
import type { ByteRange } from '../../shared/storage/index.js';
import type { HostedFileService } from '../../shared/services/files/hosted-file.service.js';
import { renditionRequestOf } from '../../shared/services/media/renditions/rendition-params.js';
import type { RenditionService } from '../../shared/services/media/renditions/rendition.service.js';
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

/** The headers of a file's answer that do not depend on the request (200, 206 and 304 alike), and its Content-Type. */
export interface PreparedFile {
  headers: Readonly<Record<string, string>>;
  contentType: string;
  /** `Repr-Digest` (RFC 9530) of the stored bytes, for full 200 answers only; absent for files stored before it was kept */
  reprDigest: string | undefined;
}

/** The `Repr-Digest` field value of a body whose SHA-256 is `sha256` (hex). */
export function reprDigestOf(sha256: string): string {
  return `sha-256=:${Buffer.from(sha256, 'hex').toString('base64')}:`;
}

/** Builds a file's headers once per looked-up row: rows served from the lookup cache are the same objects request after request. */
export class FileHeaderCache {
  private readonly prepared = new WeakMap<FileRow, PreparedFile>();

  constructor(private readonly cacheControlPublic: string) {}

  of(file: FileRow): PreparedFile {
    let prepared = this.prepared.get(file);
    if (!prepared) {
      const headers = {
        ETag: etagOf(file),
        'Last-Modified': (file.updatedAt ?? file.createdAt).toUTCString(),
        'Accept-Ranges': 'bytes',
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': SANDBOX_CSP,
        'Cache-Control': file.isPrivate ? 'private, no-store' : this.cacheControlPublic,
        // Documents and scripts are downloaded, never rendered; SVG stays viewable, sandboxed by the CSP.
        ...(DOCUMENT_TYPES.test(file.mimeType) ? { 'Content-Disposition': contentDisposition(file.filename, { type: 'attachment' }) } : {}),
      };
      // As Koa's ctx.type would say it (a charset for text types).
      // The digest is made once per looked-up row, from its stored hex: never by hashing on a request.
      prepared = { headers, contentType: contentType(file.mimeType) || file.mimeType, reprDigest: file.sha256 ? reprDigestOf(file.sha256) : undefined };
      this.prepared.set(file, prepared);
    }
    return prepared;
  }
}

/** The header that hands sending the file to the front proxy: nginx's internal URI, or the path on disk. */
export function offloadHeader(offload: NonNullable<Config['serving']['offload']>, file: FileRow, hosted: HostedFileService): [string, string] {
  return offload.mode === 'x-accel-redirect' ? ['X-Accel-Redirect', offload.prefix + file.objectKey] : ['X-Sendfile', hosted.localPath(file)];
}

/** How a share link sends a file: granted though private, never kept, each whole body counted first. */
export interface SharedSend {
  /** called before a whole body (200, or 206 from byte 0) is sent; throws to refuse it */
  beforeWholeBody: () => Promise<void>;
}

export type FileSender = (ctx: AppContext, file: FileRow, shared?: SharedSend) => Promise<void>;

/**
 * Sends a hosted file with the headers browsers, caches and download tools rely on: from memory or
 * storage, or — when configured — through a front proxy (X-Accel-Redirect / X-Sendfile) or a redirect
 * to a presigned S3 URL. Every decision (privacy, 304) is taken here first, whoever sends the bytes.
 */
export function fileSender(hosted: HostedFileService, renditions: RenditionService, urls: FileUrls, headerCache: FileHeaderCache, serving: Config['serving']): FileSender {
  const { offload, s3Redirect } = serving;
  return async (ctx, original, shared) => {
    const rendition = renditionRequestOf(ctx.query);
    if (original.isPrivate && !shared && !urls.verifyPrivateLink(original, ctx.query.expires, ctx.query.signature, rendition)) {
      throw AppError.notFound('File not found');
    }
    // A rendition is sent as its own object, by everything below, once the file itself may be.
    const served = rendition && (await renditions.serve(original, rendition, ctx.get('accept') || undefined));
    const file = served ? served.file : original;
    if (served?.variesByAccept) ctx.vary('Accept');
    const { headers, contentType: type, reprDigest } = headerCache.of(file);
    ctx.set(headers);
    if (shared) ctx.set('Cache-Control', 'private, no-store');
    // Koa's freshness check: If-None-Match (weak comparison, `*`), else If-Modified-Since.
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    // A presigned URL could be fetched again and again: a share link's views are counted here.
    if (s3Redirect && !shared && file.size >= s3Redirect.minBytes && ctx.method === 'GET') {
      // The signed URL answers with the same type, disposition and caching; the redirect itself is not kept.
      const location = await hosted.presignedUrl(file, {
        expiresInSeconds: s3Redirect.ttlSeconds,
        contentType: file.mimeType,
        contentDisposition: headers['Content-Disposition'],
        cacheControl: headers['Cache-Control']!,
      });
      ctx.set('Cache-Control', 'private, no-store');
      ctx.status = 302;
      ctx.set('Location', location);
      ctx.body = '';
      return;
    }
    const range = parseRange(ctx.get('range') || undefined, file.size);
    if (range === 'unsatisfiable') {
      ctx.status = 416;
      ctx.set('Content-Range', `bytes */${file.size}`);
      ctx.body = '';
      return;
    }
    if (shared && ctx.method === 'GET' && (!range || range.start === 0)) await shared.beforeWholeBody();
    ctx.type = type;
    // The whole representation's digest, on answers that carry all of it (a proxy answers a Range 206 itself).
    if (reprDigest && !range && (!offload || !ctx.get('range'))) ctx.set('Repr-Digest', reprDigest);
    if (offload) {
      // The proxy sends the bytes, the range and HEAD included, from what the service decided here.
      ctx.set(...offloadHeader(offload, file, hosted));
      ctx.body = '';
      return;
    }
    if (ctx.method === 'HEAD') {
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
