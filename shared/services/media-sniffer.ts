import { Transform, type TransformCallback } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { AppError } from '../errors.js';
import { STREAM_HWM } from '../storage/byte-limit.js';

/** What the first bytes say a body is; the stored content type always comes from here, not the client. */
export interface Sniffed {
  mime: string;
  /** extension that matches the content, when the content has a well-known one */
  ext: string | undefined;
  isImage: boolean;
  /** executables and scripts: never stored */
  blocked: boolean;
}

// file-type reads at most this far into a body.
const HEAD_BYTES = 4100;

const BLOCKED_MIME = new Set([
  'application/x-msdownload', // PE: exe, dll, scr
  'application/x-msi',
  'application/x-elf',
  'application/x-mach-binary',
  'application/java-vm',
  'application/java-archive',
  'application/vnd.android.package-archive',
  'application/x-deb',
  'application/x-rpm',
  'application/x-apple-diskimage',
  'application/wasm',
  'application/x-shockwave-flash',
  'application/x.ms.shortcut',
  'application/x-ms-regedit',
  'application/vnd.ms-htmlhelp',
]);

// Text that an interpreter would run: shebang scripts, PHP, Windows batch files.
const SCRIPT_HEAD = /^(?:\uFEFF)?\s*(?:#!|<\?php|<\?=|@echo\s+off)/i;

export async function sniff(head: Buffer): Promise<Sniffed> {
  const detected = await fileTypeFromBuffer(head);
  if (detected) {
    const mime = detected.mime as string;
    return { mime, ext: detected.ext, isImage: mime.startsWith('image/'), blocked: BLOCKED_MIME.has(mime) };
  }
  if (!looksLikeText(head)) return { mime: 'application/octet-stream', ext: undefined, isImage: false, blocked: false };
  const text = head.toString('utf8');
  if (SCRIPT_HEAD.test(text)) return { mime: 'text/plain', ext: 'txt', isImage: false, blocked: true };
  if (/^(?:\uFEFF)?\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(text)) {
    return { mime: 'image/svg+xml', ext: 'svg', isImage: true, blocked: false };
  }
  if (/^(?:\uFEFF)?\s*(?:<!DOCTYPE html|<html[\s>])/i.test(text)) return { mime: 'text/html', ext: 'html', isImage: false, blocked: false };
  return { mime: 'text/plain', ext: 'txt', isImage: false, blocked: false };
}

function looksLikeText(head: Buffer): boolean {
  if (head.includes(0)) return false;
  // A multi-byte character may be cut at the end of the head; judge what comes before it.
  const decoded = new TextDecoder('utf-8', { fatal: false }).decode(head.subarray(0, Math.max(0, head.length - 3)));
  return !decoded.includes('\uFFFD');
}

export interface SniffOptions {
  /** URL uploads accept images only. */
  requireImage?: boolean;
}

/**
 * Holds back the first bytes of a body until it knows what they are, then lets everything through.
 * A blocked type (or a non-image where an image is required) fails the pipeline before any byte is
 * written, so nothing of it is ever stored.
 */
export class MediaSniffer extends Transform {
  result: Sniffed | undefined;
  private head: Buffer[] = [];
  private headLength = 0;

  constructor(private readonly options: SniffOptions = {}) {
    // Large buffers: every hop of a big upload passes fewer, larger chunks.
    super({ highWaterMark: STREAM_HWM });
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
    if (this.result) return done(null, chunk);
    this.head.push(chunk);
    this.headLength += chunk.length;
    if (this.headLength < HEAD_BYTES) return done();
    this.decide().then(() => done(), done);
  }

  override _flush(done: TransformCallback) {
    if (this.result) return done();
    if (this.headLength === 0) return done(AppError.badRequest('The file is empty'));
    this.decide().then(() => done(), done);
  }

  private async decide() {
    const head = Buffer.concat(this.head);
    this.head = [];
    const result = await sniff(head);
    if (result.blocked) throw AppError.badRequest('This file type is not allowed (executables and scripts are blocked)');
    if (this.options.requireImage && !result.isImage) throw AppError.badRequest('The content is not an image');
    this.result = result;
    this.push(head);
  }
}
