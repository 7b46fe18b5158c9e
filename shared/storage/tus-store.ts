import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdtemp, readdir, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { paginateListObjectsV2 } from '@aws-sdk/client-s3';
import { FileStore } from '@tus/file-store';
import { S3Store } from '@tus/s3-store';
import { ERRORS, IoRedisKvStore, isPathInsideDirectory, type Upload } from '@tus/utils';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { FileWriter } from './file-writer.js';

export type TusStore = LocalTusStore | RemovableS3Store;

/**
 * IoRedisKvStore whose `list()` answers ids, as `get()` takes them: the library's answers the
 * prefixed keys, so FileStore's expiry sweep never found an upload to delete.
 */
class RedisKvStore extends IoRedisKvStore<Upload> {
  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
  ) {
    super(redis, keyPrefix);
  }

  override async list(): Promise<string[]> {
    return (await super.list()).map((key) => key.slice(this.keyPrefix.length));
  }
}

// The finished upload is read into storage in steps of this size: at fs's default 64 KiB every
// step was a thread-pool round trip the copy waited on (the finish of 512 MiB took twice as long).
const READ_CHUNK = 256 * 1024;
// How far a PATCH body may run ahead of the disk (as for stored objects).
const WRITE_AHEAD = 4 * 1024 * 1024;
// An upload's own names in the bucket: its assembled object, `.info` and incomplete `.part` (ids are UUIDs).
const S3_UPLOAD_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\.info|\.part)?$/;
const S3_DELETE_BATCH = 1000;
// The tus checksum extension's answer to a body whose digest differs (its bytes are not kept).
const CHECKSUM_MISMATCH = { status_code: 460, body: JSON.stringify({ success: false, error: 'Checksum mismatch: the chunk was not kept; send it again' }) };

/** The SHA-256 the body of the PATCH being handled must have (`Upload-Checksum`), if it named one. */
const expectedDigest = new AsyncLocalStorage<Buffer>();

/** Handles a request whose body must have this SHA-256: a body that differs is dropped and answered 460. */
export function withChunkDigest<T>(sha256: Buffer, handle: () => T): T {
  return expectedDigest.run(sha256, handle);
}

/*
 * `removeStale()` of both stores sweeps the store itself, by age: the library's `deleteExpired` finds
 * uploads through their state (Redis for the file store, open multipart uploads on S3), so an upload
 * whose state was lost (an emptied Redis) or that outlived its finish (a process killed in between)
 * stayed for ever. What was last written longer ago than the expiry period belongs to an upload past
 * its expiry (which counts from its creation) and goes, whatever Redis says; Redis is only tidied
 * where it answers. The hourly uploads.expire job (`deleteExpired`) and the storage reconciliation run it.
 */

/**
 * FileStore writing PATCH bodies behind their input (FileStore's fs.WriteStream held each 64 KiB
 * socket chunk until it was on disk, so receiving and writing took turns) and reading the finished
 * file in larger steps: 512 MiB over tus went from 145 to about 200 MB/s on the bench machine.
 */
class LocalTusStore extends FileStore {
  override read(id: string): ReadStream {
    return createReadStream(this.pathOf(id), { highWaterMark: READ_CHUNK });
  }

  override async write(body: Readable, id: string, offset: number): Promise<number> {
    const expected = expectedDigest.getStore();
    const hash = expected && createHash('sha256');
    const filePath = this.pathOf(id);
    // Appending is writing at the offset: tus accepts a PATCH only at the file's current size.
    const file = new FileWriter(filePath, WRITE_AHEAD, Number.POSITIVE_INFINITY, 'a', hash);
    try {
      await pipeline(body, file);
    } catch {
      // Part of a checked body cannot be vouched for: the upload goes back to where the PATCH found it.
      if (expected) await truncateClosed(file, filePath, offset);
      throw ERRORS.FILE_WRITE_ERROR;
    }
    // The digest was taken as the bytes were written; a mismatch cuts them off again (under the upload's lock).
    if (hash && !hash.digest().equals(expected)) {
      await truncate(filePath, offset);
      throw CHECKSUM_MISMATCH;
    }
    return offset + file.bytes;
  }

  /** As FileStore's, but an upload whose file is already gone (swept as stale) still loses its state. */
  override async remove(id: string): Promise<void> {
    await rm(this.pathOf(id), { force: true });
    await this.configstore.delete(id);
  }

  override async deleteExpired(): Promise<number> {
    return (await super.deleteExpired()) + (await this.removeStale());
  }

  async removeStale(): Promise<number> {
    const cutoff = Date.now() - this.getExpiration();
    let removed = 0;
    for (const id of await readdir(this.directory).catch(() => [] as string[])) {
      const entry = await stat(this.pathOf(id)).catch(() => undefined);
      if (!entry?.isFile() || entry.mtimeMs > cutoff) continue;
      await rm(this.pathOf(id), { force: true });
      removed += 1;
      await this.configstore.delete(id).catch(() => undefined);
    }
    return removed;
  }

  /** As FileStore's own (private) resolve: an id never leads out of the directory. */
  private pathOf(id: string): string {
    const filePath = path.join(this.directory, id);
    if (!isPathInsideDirectory(this.directory, filePath)) throw ERRORS.FILE_NOT_FOUND;
    return filePath;
  }
}

/**
 * S3Store whose `remove()` also removes a finished upload: the library aborts the multipart upload
 * first, and as a completed one is no longer there, it gave up before deleting the assembled object.
 */
class RemovableS3Store extends S3Store {
  /** Parts reach S3 as they fill and cannot be taken back: a checked body waits in a temporary file until its digest matches. */
  override async write(body: Readable, id: string, offset: number): Promise<number> {
    const expected = expectedDigest.getStore();
    if (!expected) return super.write(body, id, offset);
    const dir = await mkdtemp(path.join(tmpdir(), 'hfs-tus-chunk-'));
    try {
      const spooled = path.join(dir, 'chunk');
      const hash = createHash('sha256');
      try {
        await pipeline(body, new FileWriter(spooled, WRITE_AHEAD, Number.POSITIVE_INFINITY, 'wx', hash));
      } catch {
        throw ERRORS.FILE_WRITE_ERROR;
      }
      if (!hash.digest().equals(expected)) throw CHECKSUM_MISMATCH;
      return await super.write(createReadStream(spooled, { highWaterMark: READ_CHUNK }), id, offset);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  override async remove(id: string): Promise<void> {
    try {
      await super.remove(id);
    } catch (err) {
      if (err !== ERRORS.FILE_NOT_FOUND) throw err;
      await this.client.deleteObjects({ Bucket: this.bucket, Delete: { Objects: [{ Key: id }, { Key: this.infoKey(id) }] } });
      await this.clearCache(id);
    }
  }

  override deleteExpired(): Promise<number> {
    return this.removeStale();
  }

  async removeStale(): Promise<number> {
    // The library's sweep needs no Redis here: it finds expired uploads among the bucket's multipart uploads.
    const expired = await super.deleteExpired();
    const cutoff = Date.now() - this.getExpiration();
    const stale: string[] = [];
    // The uploads' names lie at the bucket's top level (stored files are under objects/).
    for await (const page of paginateListObjectsV2({ client: this.client }, { Bucket: this.bucket, Delimiter: '/' })) {
      for (const { Key, LastModified } of page.Contents ?? []) {
        if (Key && S3_UPLOAD_KEY.test(Key) && LastModified && LastModified.getTime() <= cutoff) stale.push(Key);
      }
    }
    for (let i = 0; i < stale.length; i += S3_DELETE_BATCH) {
      const batch = stale.slice(i, i + S3_DELETE_BATCH);
      await this.client.deleteObjects({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })) } });
    }
    for (const id of new Set(stale.map((key) => key.replace(/\.(info|part)$/, '')))) await this.clearCache(id).catch(() => undefined);
    return expired + stale.length;
  }
}

/**
 * Where resumable uploads collect their bytes until they finish: a directory of their own beside
 * the local driver's files, or one S3 multipart upload each; their state in Redis, so any web
 * process can continue any upload.
 */
export function createTusStore(config: Pick<Config, 'storage' | 'dataDir' | 'redisPrefix' | 'resumableUploadExpiryMs'>, redis: Redis): TusStore {
  const store = createStore(config, redis);
  // Both check a PATCH's `Upload-Checksum` (sha256) as its body is written: OPTIONS names the extension.
  store.extensions.push('checksum');
  return store;
}

function createStore(config: Pick<Config, 'storage' | 'dataDir' | 'redisPrefix' | 'resumableUploadExpiryMs'>, redis: Redis): TusStore {
  const { storage } = config;
  if (storage.driver === 's3') {
    const { bucket, endpoint, region, forcePathStyle, accessKeyId, secretAccessKey } = storage.s3;
    return new RemovableS3Store({
      expirationPeriodInMilliseconds: config.resumableUploadExpiryMs,
      // Expiry by our sweep, not object tags: not every S3-compatible store has tagging.
      useTags: false,
      cache: new IoRedisKvStore(redis, `${config.redisPrefix}:tus-s3:`),
      s3ClientConfig: {
        bucket,
        region: region ?? 'us-east-1',
        ...(endpoint ? { endpoint } : {}),
        forcePathStyle: forcePathStyle ?? false,
        // Parts are streamed from temp files; a default checksum would send them aws-chunked, which
        // several S3-compatible stores (s3rver among them) store with the chunk framing in the bytes.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
      },
    });
  }
  return new LocalTusStore({
    directory: path.join(config.dataDir, 'tus'),
    configstore: new RedisKvStore(redis, `${config.redisPrefix}:tus:`),
    expirationPeriodInMilliseconds: config.resumableUploadExpiryMs,
  });
}

/** Cuts the file a failed writer appended to back to `size`, once the writer is closed (no write lands after). */
async function truncateClosed(file: FileWriter, filePath: string, size: number): Promise<void> {
  if (!file.closed) await once(file, 'close');
  await truncate(filePath, size);
}
