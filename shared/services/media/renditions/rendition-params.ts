import { AppError } from '../../../errors.js';

/** The widths a rendition may be asked for: a fixed list, so nobody can make us store every width there is. */
export const RENDITION_WIDTHS = [64, 128, 256, 320, 480, 640, 800, 1024, 1280, 1600, 1920, 2560] as const;
export const RENDITION_FORMATS = ['webp', 'avif', 'jpeg', 'png', 'auto'] as const;
export const RENDITION_QUALITIES = [50, 60, 70, 80, 90] as const;
/** What a hosted image URL's query may hold besides the rendition: a private file's link signature. */
const SIGNATURE_PARAMS = new Set(['expires', 'signature']);

export type RequestedFormat = (typeof RENDITION_FORMATS)[number];
/** What a rendition is written as: an asked format, or the original's own when none was asked. */
export type OutputFormat = 'webp' | 'avif' | 'jpeg' | 'png' | 'gif';

/** A rendition as the URL asks for it (`?w=640&format=auto&q=80`); at least one is set. */
export interface RenditionRequest {
  w?: number;
  format?: RequestedFormat;
  q?: number;
}

/** A rendition as it is made and stored: `auto` and a missing format resolved for this request. */
export interface RenditionVariant {
  width: number | undefined;
  format: OutputFormat;
  quality: number | undefined;
  /** answered differently by the request's Accept header (format=auto) */
  variesByAccept: boolean;
}

export const OUTPUT_TYPES: Record<OutputFormat, string> = {
  webp: 'image/webp',
  avif: 'image/avif',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
};

type Query = Record<string, string | string[] | undefined>;

/**
 * The rendition a hosted file URL's query asks for; undefined when it asks for none (the original).
 * A value outside the allow-lists, a repeated parameter or an unknown one is a 400 that names what
 * is allowed.
 */
export function renditionRequestOf(query: Query): RenditionRequest | undefined {
  const request: RenditionRequest = {};
  for (const [name, raw] of Object.entries(query)) {
    if (SIGNATURE_PARAMS.has(name)) continue;
    if (typeof raw !== 'string') throw invalid(`${name} may be given once`);
    if (name === 'w') request.w = oneOf(RENDITION_WIDTHS, Number(raw), raw, 'w');
    else if (name === 'q') request.q = oneOf(RENDITION_QUALITIES, Number(raw), raw, 'q');
    else if (name === 'format') request.format = oneOf(RENDITION_FORMATS, raw, raw, 'format');
    else throw invalid(`Unknown parameter ${name}: a hosted image URL takes w (${RENDITION_WIDTHS.join(', ')}), format (${RENDITION_FORMATS.join(', ')}) and q (${RENDITION_QUALITIES.join(', ')})`);
  }
  return Object.keys(request).length > 0 ? request : undefined;
}

/** The same request from a raw query string (the fast path parses no more than this). */
export function renditionRequestOfSearch(search: string): RenditionRequest | undefined {
  const query: Query = {};
  for (const [name, value] of new URLSearchParams(search)) {
    const seen = query[name];
    query[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return renditionRequestOf(query);
}

/** The request's parameters in one fixed order: what a signature covers and what a link carries. */
export function canonicalQuery(request: RenditionRequest | undefined): string {
  if (!request) return '';
  const parts: string[] = [];
  if (request.w !== undefined) parts.push(`w=${request.w}`);
  if (request.format !== undefined) parts.push(`format=${request.format}`);
  if (request.q !== undefined) parts.push(`q=${request.q}`);
  return parts.join('&');
}

/**
 * What is made for this request: `auto` picks AVIF, then WebP, from `Accept`, else the original's
 * format; no format keeps the original's (WebP for what no browser shows, such as HEIC or BMP).
 * Formats that may be animated (GIF, WebP, APNG) are never turned into AVIF by `auto`: their frames stay.
 */
export function variantOf(request: RenditionRequest, mimeType: string, accept: string | undefined): RenditionVariant {
  const own = ownFormatOf(mimeType);
  let format: OutputFormat;
  if (request.format === 'auto') {
    const accepts = accept ?? '';
    if (accepts.includes('image/avif') && !mayBeAnimated(mimeType)) format = 'avif';
    else if (accepts.includes('image/webp')) format = 'webp';
    else format = own === 'webp' || own === 'avif' ? (mayBeAnimated(mimeType) ? 'gif' : 'jpeg') : own;
  } else format = request.format ?? own;
  return { width: request.w, format, quality: request.q, variesByAccept: request.format === 'auto' };
}

/** The variant's part of its stored key: `w640-q80-webp` (`w0` for the original's width, `qd` for the format's default). */
export function variantName(variant: RenditionVariant): string {
  return `w${variant.width ?? 0}-q${variant.quality ?? 'd'}-${variant.format}`;
}

/** Every name a stored variant can have (390): what may be stored beside an object, made or not. */
export function allVariantNames(): string[] {
  const formats: OutputFormat[] = ['webp', 'avif', 'jpeg', 'png', 'gif'];
  const widths = [undefined, ...RENDITION_WIDTHS];
  const qualities = [undefined, ...RENDITION_QUALITIES];
  return widths.flatMap((width) => qualities.flatMap((quality) => formats.map((format) => variantName({ width, quality, format, variesByAccept: false }))));
}

/**
 * The queries that name a stored variant (by its `variantName`) as links carry them, in canonical
 * order: what a CDN may have cached it under, to purge.
 */
export function queriesNaming(name: string, mimeType: string): string[] {
  const match = /^w(\d+)-q(\d+|d)-(webp|avif|jpeg|png|gif)$/.exec(name);
  if (!match) return [];
  const w = Number(match[1]) || undefined;
  const q = match[2] === 'd' ? undefined : Number(match[2]);
  const made = match[3] as OutputFormat;
  const formats: (RequestedFormat | undefined)[] = ['auto'];
  if (made !== 'gif') formats.push(made);
  if (ownFormatOf(mimeType) === made) formats.push(undefined);
  return formats.map((format) => canonicalQuery({ ...(w ? { w } : {}), ...(format ? { format } : {}), ...(q ? { q } : {}) })).filter(Boolean);
}

/** Formats whose files may hold several frames. */
export function mayBeAnimated(mimeType: string): boolean {
  return /^image\/(?:gif|webp|apng)$/.test(mimeType);
}

function ownFormatOf(mimeType: string): OutputFormat {
  switch (mimeType) {
    case 'image/jpeg':
      return 'jpeg';
    case 'image/png':
      return 'png';
    case 'image/gif':
      return 'gif';
    case 'image/avif':
      return 'avif';
    default:
      return 'webp';
  }
}

function oneOf<T extends string | number>(allowed: readonly T[], value: unknown, raw: string, name: string): T {
  if (!allowed.includes(value as T) || raw.trim() !== raw) throw invalid(`${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function invalid(message: string): AppError {
  return AppError.badRequest(message, {
    allowed: { w: RENDITION_WIDTHS, format: RENDITION_FORMATS, q: RENDITION_QUALITIES },
  });
}
