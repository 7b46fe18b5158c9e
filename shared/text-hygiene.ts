/// <reference lib="es2024.string" />
import { isUtf8 } from 'node:buffer';
import { AppError } from './errors.js';

// The one rule for text the service takes in (docs/decisions.md, "Input hygiene"): PostgreSQL's
// text cannot hold U+0000, and invalid UTF-8 or a lone surrogate has no stored form at all, so such
// text can never be kept or name anything kept. It is refused where it enters, never sent to a query.

export const UNSTORABLE_TEXT = 'Text must not contain NUL characters (U+0000) or invalid UTF-8';

export function unstorableText(): AppError {
  return new AppError(400, 'unstorable_text', UNSTORABLE_TEXT);
}

export function isStorableText(text: string): boolean {
  return !text.includes('\0') && text.isWellFormed();
}

/** Every string in a value built in memory, keys included (not for untrusted nesting: it recurses). */
export function isStorableValue(value: unknown): boolean {
  if (typeof value === 'string') return isStorableText(value);
  if (value === null || typeof value !== 'object') return true;
  return Object.entries(value).every(([key, item]) => isStorableText(key) && isStorableValue(item));
}

export function isStorableUtf8(bytes: Uint8Array): boolean {
  return isUtf8(bytes) && !bytes.includes(0);
}

/**
 * Percent-encoded text (a URL's path and query, a form body), as its bytes or as a string of them in
 * UTF-8: what it stands for, every escape as the byte it names, must be storable.
 */
export function isStorablePercentEncoded(raw: Buffer | string): boolean {
  const bytes = typeof raw === 'string' ? Buffer.from(raw) : raw;
  if (!bytes.includes(0x25)) return isStorableUtf8(bytes);
  const decoded = bytes.toString('latin1').replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return isStorableUtf8(Buffer.from(decoded, 'latin1'));
}
