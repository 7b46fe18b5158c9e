import type { StorageDriver } from '../../../storage/index.js';
import { allVariantNames } from '../renditions/rendition-params.js';
import { RENDITION_NAMES, type RenditionName } from './thumbnail-renderer.js';

// Thumbnails and renditions are stored beside their file's object, `objects/{uuid}_{name}`: under
// the same prefix, removed with it, and an underscore is in no object key (a UUID) itself.
const DERIVED_KEY = /^([^_]+)_[^/]+$/;

export const THUMBNAIL_PATH = '/thumbnails';

/** What a rendition's URL names: the file, its content's object and its privacy version. */
type VersionedFile = { shortCode: string; objectKey: string; privacyVersion: number };

/**
 * A rendition's public URL. The version changes with the content (a replace) and with every privacy
 * change, so each URL's bytes never change and may be cached for a year, and no copy made while the
 * file was public answers for it once it is private: the old URL is 404 from then on.
 */
export function renditionUrl(siteUrl: string, file: VersionedFile, rendition: RenditionName): string {
  return `${siteUrl}${THUMBNAIL_PATH}/${file.shortCode}/${versionOf(file)}/${rendition}.webp`;
}

/**
 * The URLs a CDN may hold for a file's current content: every rendition at its version now and at the
 * one before the last privacy change (cached while the file was public, if it was).
 */
export function renditionUrlsOf(siteUrl: string, file: VersionedFile): string[] {
  const versions = file.privacyVersion > 0 ? [file, { ...file, privacyVersion: file.privacyVersion - 1 }] : [file];
  return versions.flatMap((version) => RENDITION_NAMES.map((name) => renditionUrl(siteUrl, version, name)));
}

export function versionOf(file: Pick<VersionedFile, 'objectKey' | 'privacyVersion'>): string {
  return `${file.objectKey.slice(file.objectKey.lastIndexOf('/') + 1)}-${file.privacyVersion}`;
}

export function renditionKey(objectKey: string, rendition: RenditionName): string {
  return `${objectKey}_${rendition}`;
}

/** Every thumbnail key of an object (whether made or not). */
export function renditionKeysOf(objectKey: string): string[] {
  return RENDITION_NAMES.map((name) => renditionKey(objectKey, name));
}

/** The object a stored key belongs to: itself, or the object it is a thumbnail or rendition of. */
export function sourceKeyOf(key: string): string {
  return DERIVED_KEY.exec(key)?.[1] ?? key;
}

/** The prefix of every key stored beside an object (its thumbnails and renditions). */
export function derivedPrefixOf(objectKey: string): string {
  return `${objectKey}_`;
}

// Up to this many objects, their derived keys are deleted by name; more, by one listing for all.
const BY_NAME_AT_MOST = 4;
// Every name a thumbnail or rendition can have beside its object.
const DERIVED_NAMES: readonly string[] = [...RENDITION_NAMES, ...allVariantNames()];

/**
 * Deletes stored objects with everything stored beside them. For a few objects (a file's delete or
 * replace), every key a thumbnail or rendition can have is deleted by name: listing the prefix reads
 * a whole directory on local disk (a second at a million objects). For a batch (an expiry sweep's),
 * one listing for all: an object's key is the prefix of its derived keys and of no other object's.
 * Whatever the names miss (an allow-list since shortened) is an orphan the hourly sweep removes.
 */
export async function deleteWithDerived(storage: StorageDriver, objectKeys: readonly string[]): Promise<void> {
  if (objectKeys.length > BY_NAME_AT_MOST) {
    await storage.deletePrefixed(objectKeys);
    return;
  }
  await storage.deleteMany(objectKeys.flatMap((key) => [key, ...DERIVED_NAMES.map((name) => `${derivedPrefixOf(key)}${name}`)]));
}
