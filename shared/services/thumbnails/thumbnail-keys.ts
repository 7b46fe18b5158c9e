import { RENDITION_NAMES, type RenditionName } from './thumbnail-renderer.js';

// Renditions are stored beside their file's object, `objects/{uuid}_{rendition}`: under the same
// prefix, removed with it, and an underscore is in no object key (a UUID) itself.
const RENDITION_KEY = new RegExp(`^(.+)_(?:${RENDITION_NAMES.join('|')})$`);

export const THUMBNAIL_PATH = '/thumbnails';

/**
 * A rendition's public URL. The version is the content's object id: a replace (a new object) gives
 * new URLs, so each URL's bytes never change and may be cached for a year.
 */
export function renditionUrl(siteUrl: string, file: { shortCode: string; objectKey: string }, rendition: RenditionName): string {
  return `${siteUrl}${THUMBNAIL_PATH}/${file.shortCode}/${versionOf(file)}/${rendition}.webp`;
}

/** The URLs of every rendition of a file (what a CDN may hold). */
export function renditionUrlsOf(siteUrl: string, file: { shortCode: string; objectKey: string }): string[] {
  return RENDITION_NAMES.map((name) => renditionUrl(siteUrl, file, name));
}

export function versionOf(file: { objectKey: string }): string {
  return file.objectKey.slice(file.objectKey.lastIndexOf('/') + 1);
}

export function renditionKey(objectKey: string, rendition: RenditionName): string {
  return `${objectKey}_${rendition}`;
}

/** Every rendition key of an object (whether made or not). */
export function renditionKeysOf(objectKey: string): string[] {
  return RENDITION_NAMES.map((name) => renditionKey(objectKey, name));
}

/** The object a stored key belongs to: itself, or the object it is a rendition of. */
export function sourceKeyOf(key: string): string {
  return RENDITION_KEY.exec(key)?.[1] ?? key;
}
