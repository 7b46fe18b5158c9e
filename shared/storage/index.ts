import type { Config } from '../config.js';
import { LocalDriver } from './local.driver.js';
import { S3Driver } from './s3.driver.js';
import type { StorageDriver } from './storage-driver.js';

export type { ByteRange, ObjectBody, PutOptions, StorageDriver, StoredObject } from './storage-driver.js';

export function createStorage(storage: Config['storage']): StorageDriver {
  return storage.driver === 's3' ? new S3Driver(storage.s3) : new LocalDriver(storage.localRoot);
}

/** Objects are never overwritten: every stored body gets a fresh key. */
export function newObjectKey(): string {
  return `objects/${crypto.randomUUID()}`;
}
