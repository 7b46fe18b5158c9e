import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { StorageDriver } from '../../storage/index.js';

/**
 * Streams a body into a temporary file for `use`, removed afterwards: decoders need a file they can
 * seek in (an MP4 whose index sits at its end cannot be read from a pipe).
 */
export async function withTempFile<T>(body: Readable, signal: AbortSignal | undefined, use: (file: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'hfs-frame-'));
  try {
    const file = path.join(dir, 'media');
    await pipeline(body, createWriteStream(file), { signal });
    return await use(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** An object as a file a decoder reads: on local disk its own file, elsewhere a temporary copy, streamed. 'gone' when missing. */
export async function withObjectFile<T>(storage: StorageDriver, key: string, signal: AbortSignal | undefined, use: (file: string) => Promise<T>): Promise<T | 'gone'> {
  if (storage.localPath) return (await storage.head(key)) ? use(storage.localPath(key)) : 'gone';
  const object = await storage.get(key);
  if (!object) return 'gone';
  return withTempFile(object.body, signal, use);
}
