import { RENDITION_NAMES, type RenditionName } from './thumbnail-renderer.js';

// Renditions are stored beside their file's object, `objects/{uuid}_{rendition}`: under the same
// prefix, removed with it, and an underscore is in no object key (a UUID) itself.
const RENDITION_KEY = new RegExp(`^(.+)_(?:${RENDITION_NAMES.join('|')})$`);

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
