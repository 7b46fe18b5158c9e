import { Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { AppError } from '../../errors.js';

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
 * Reads the first bytes of a body, decides what it is, and puts them back, so the body itself flows
 * on to storage with no stream in between (a pass-through hop costs a big upload several percent).
 * A blocked type, or a non-image where an image is required, is refused before any byte is stored.
 */
export async function sniffBody(body: Readable, options: SniffOptions = {}): Promise<{ sniffed: Sniffed; body: Readable }> {
  // A body that had all its bytes already ends (next tick) once the head read drains it, and what
  // would be put back then is lost: such a body is all head, and is handed on as that.
  let ended = false;
  const onEnd = () => (ended = true);
  body.once('end', onEnd);
  try {
    const head = await readHead(body, HEAD_BYTES);
    if (head.length === 0) throw AppError.badRequest('The file is empty');
    const sniffed = await sniff(head);
    if (sniffed.blocked) throw AppError.badRequest('This file type is not allowed (executables and scripts are blocked)');
    if (options.requireImage && !sniffed.isImage) throw AppError.badRequest('The content is not an image');
    if (ended) return { sniffed, body: Readable.from([head]) };
    body.unshift(head);
    return { sniffed, body };
  } finally {
    body.off('end', onEnd);
  }
}

/** At least `size` bytes from the start of `body` (fewer if it ends first), leaving it paused. */
function readHead(body: Readable, size: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const settle = (err?: unknown) => {
      body.off('readable', onReadable).off('end', onEnd).off('error', onError).off('close', onClose);
      if (err !== undefined) reject(err);
      // Usually the first chunk holds the whole head: hand it on as is rather than copy it.
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length));
    };
    const onReadable = () => {
      let chunk: Buffer | null;
      while (length < size && (chunk = body.read() as Buffer | null) !== null) {
        chunks.push(chunk);
        length += chunk.length;
      }
      if (length >= size) settle();
    };
    const onEnd = () => settle();
    const onError = (err: unknown) => settle(err);
    // Destroyed without an error: it will never end, and nothing more will come.
    const onClose = () => settle(new Error('The body closed before it ended'));
    body.on('readable', onReadable).once('end', onEnd).once('error', onError).once('close', onClose);
  });
}
