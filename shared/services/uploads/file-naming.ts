import path from 'node:path';
import { randomBase62 } from '../../crypto.js';

// Extensions a browser or OS might execute or render as a page; a stored name never keeps them
// unless the bytes say the file really is that (and then it is served sandboxed).
const UNSAFE_EXTENSIONS = new Set([
  'exe', 'dll', 'scr', 'com', 'bat', 'cmd', 'msi', 'ps1', 'vbs', 'vbe', 'js', 'mjs', 'cjs', 'jse', 'wsf', 'wsh',
  'hta', 'sh', 'bash', 'php', 'phtml', 'pl', 'py', 'rb', 'jar', 'apk', 'app', 'dmg', 'deb', 'rpm', 'elf', 'so',
  'html', 'htm', 'xhtml', 'shtml', 'svg', 'svgz', 'xml', 'xsl', 'swf', 'lnk', 'reg', 'chm', 'wasm',
]);

/** An extension for the stored name: the content's own, else the original's when it is harmless. */
export function chooseExtension(originalName: string, sniffedExt: string | undefined): string {
  if (sniffedExt) return sniffedExt === 'jpeg' ? 'jpg' : sniffedExt;
  const ext = path.extname(originalName).slice(1).toLowerCase();
  if (/^[a-z0-9]{1,10}$/.test(ext) && !UNSAFE_EXTENSIONS.has(ext)) return ext;
  return 'bin';
}

/** A random stored filename; 10 base62 characters make collisions vanishingly rare. */
export function generateFilename(extension: string): string {
  return `${randomBase62(10)}.${extension}`;
}

/** The code of short URLs (`/s/{code}`). */
export function generateShortCode(): string {
  return randomBase62(7);
}

/** What the client called the file, reduced to a plain name of sane length. */
export function cleanOriginalName(name: string | undefined, fallback = 'file'): string {
  const base = path.basename((name ?? '').replace(/\\/g, '/')).replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return (base || fallback).slice(0, 255);
}
