import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { StorageDriver, WrittenObject } from './storage-driver.js';

/** The SHA-256 (hex) of a body, read to its end a chunk at a time. */
export async function sha256Of(body: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of body) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** A stored object's size and SHA-256, read through once; null when there is no such object. */
export async function readDigest(storage: StorageDriver, key: string): Promise<WrittenObject | null> {
  const object = await storage.get(key);
  return object && { size: object.size, sha256: await sha256Of(object.body) };
}
