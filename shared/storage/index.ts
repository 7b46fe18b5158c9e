import type { Config } from '../config.js';
import { LocalDriver } from './local.driver.js';
import { S3Driver } from './s3.driver.js';
import type { StorageDriver } from './storage-driver.js';

export { readDigest, sha256Of } from './object-digest.js';
export { createTusStore, type TusStore, withChunkDigest } from './tus-store.js';
export type { ByteRange, PresignOptions, ListedObject, ObjectBody, PutOptions, StorageDriver, StoredObject, WrittenObject } from './storage-driver.js';

export function createStorage(storage: Config['storage']): StorageDriver {
  return storage.driver === 's3' ? new S3Driver(storage.s3) : new LocalDriver(storage.localRoot);
}

/** Where every stored body lives: the orphan sweep lists this prefix. */
export const OBJECT_KEY_PREFIX = 'objects/';

/** Objects are never overwritten: every stored body gets a fresh key. */
export function newObjectKey(): string {
  return `${OBJECT_KEY_PREFIX}${crypto.randomUUID()}`;
}
