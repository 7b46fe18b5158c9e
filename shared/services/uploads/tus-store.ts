import path from 'node:path';
import { FileStore } from '@tus/file-store';
import { S3Store } from '@tus/s3-store';
import { ERRORS, IoRedisKvStore, type Upload } from '@tus/utils';
import type { Redis } from 'ioredis';
import type { Config } from '../../config.js';

export type TusStore = FileStore | S3Store;

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

/**
 * S3Store whose `remove()` also removes a finished upload: the library aborts the multipart upload
 * first, and as a completed one is no longer there, it gave up before deleting the assembled object.
 */
class RemovableS3Store extends S3Store {
  override async remove(id: string): Promise<void> {
    try {
      await super.remove(id);
    } catch (err) {
      if (err !== ERRORS.FILE_NOT_FOUND) throw err;
      await this.client.deleteObjects({ Bucket: this.bucket, Delete: { Objects: [{ Key: id }, { Key: this.infoKey(id) }] } });
      await this.clearCache(id);
    }
  }
}

/**
 * Where resumable uploads collect their bytes until they finish: a directory of their own beside
 * the local driver's files, or one S3 multipart upload each; their state in Redis, so any web
 * process can continue any upload.
 */
export function createTusStore(config: Pick<Config, 'storage' | 'dataDir' | 'redisPrefix' | 'resumableUploadExpiryMs'>, redis: Redis): TusStore {
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
  return new FileStore({
    directory: path.join(config.dataDir, 'tus'),
    configstore: new RedisKvStore(redis, `${config.redisPrefix}:tus:`),
    expirationPeriodInMilliseconds: config.resumableUploadExpiryMs,
  });
}
