import { formatDate } from '../format.js';
import type { FileRecord, ModerationState } from '../types.js';
import { EXPIRY_OPTIONS } from '../../../../../shared/contracts/values.js';

// How a file's kind, origin, moderation and expiry read on screen.

type FileKind = 'image' | 'video' | 'audio' | 'document' | 'other';

export function kindOf(mimeType: string | undefined): FileKind {
  const type = mimeType ?? '';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('text/') || /pdf|document|sheet|presentation|msword|rtf|json|xml/.test(type)) return 'document';
  return 'other';
}

/** Whether the server makes sized renditions of it (rendition.service): images, but not SVG, which browsers draw as it is. */
export const isResizable = (mimeType: string | undefined) => /^image\/(?!svg)/.test(mimeType ?? '');

/** A short label for a file without a thumbnail: its extension (PNG, MP4, PDF), else its kind. */
export function typeLabel(file: Pick<FileRecord, 'filename' | 'mimeType'>): string {
  const ext = /\.([A-Za-z0-9]{1,5})$/.exec(file.filename)?.[1];
  return ext ? ext.toUpperCase() : kindOf(file.mimeType).toUpperCase();
}

const MODERATION: Record<ModerationState, string> = {
  pending: 'Being checked',
  allowed: 'Allowed',
  flagged: 'Held for review',
  blocked: 'Blocked (its links answer 451)',
};

export function moderationText(state: ModerationState | undefined): string {
  return (state && MODERATION[state]) ?? 'Not checked';
}

const SOURCES: Record<string, string> = {
  web: 'Website',
  api: 'API key',
  tus: 'Resumable upload',
  url: 'From a URL',
  drop: 'Drop link',
  mcp: 'Assistant',
};

export function sourceText(source: string): string {
  return SOURCES[source] ?? source;
}

/** "Never", or the date it goes (and the choice made at upload). */
export function expiryText(file: Pick<FileRecord, 'expiry' | 'expiresAt'>): string {
  if (!file.expiresAt) return 'Never';
  const chosen = EXPIRY_OPTIONS.find((option) => option.value && option.value === file.expiry)?.label;
  return chosen ? `${formatDate(file.expiresAt)} (${chosen} after upload)` : formatDate(file.expiresAt);
}

/** The name a person knows the file by: the one it was uploaded with (the stored one is random). */
export const shownName = (file: Pick<FileRecord, 'filename' | 'originalName'>) => file.originalName || file.filename;

/** The dashboard path of a file's own page. */
export const filePagePath = (filename: string) => `/dashboard/files/${encodeURIComponent(filename)}`;

/**
 * The file at this site's own origin (`/u/{username}/{filename}`, with a private file's signature):
 * the page's CSP lets audio and video play from here only, not from a personal subdomain.
 */
export function sameOriginUrl(file: Pick<FileRecord, 'filename' | 'url'>, username: string): string {
  return `/u/${encodeURIComponent(username)}/${encodeURIComponent(file.filename)}${new URL(file.url, location.href).search}`;
}
