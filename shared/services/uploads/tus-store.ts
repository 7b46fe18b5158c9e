import path from 'node:path';
import { FileStore } from '@tus/file-store';
import { S3Store } from '@tus/s3-store';
import { IoRedisKvStore } from '@tus/utils';
import type { Redis } from 'ioredis';
import type { Config } from '../../config.js';

/** How long an unfinished resumable upload is kept. */
export const TUS_EXPIRATION_MS = 24 * 60 * 60 * 1000;

export type TusStore = FileStore | S3Store;

/**
 * Where resumable uploads collect their bytes until they finish: a directory of their own beside
 * the local driver's files, or one S3 multipart upload each; their state in Redis, so any web
 * process can continue any upload.
 */
export function createTusStore(config: Pick<Config, 'storage' | 'dataDir' | 'redisPrefix'>, redis: Redis): TusStore {
  const { storage } = config;
  if (storage.driver === 's3') {
    const { bucket, endpoint, region, forcePathStyle, accessKeyId, secretAccessKey } = storage.s3;
    return new S3Store({
      expirationPeriodInMilliseconds: TUS_EXPIRATION_MS,
      cache: new IoRedisKvStore(redis, `${config.redisPrefix}:tus-s3:`),
      s3ClientConfig: {
        bucket,
        region: region ?? 'us-east-1',
        ...(endpoint ? { endpoint } : {}),
        forcePathStyle: forcePathStyle ?? false,
        ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
      },
    });
  }
  return new FileStore({
    directory: path.join(config.dataDir, 'tus'),
    configstore: new IoRedisKvStore(redis, `${config.redisPrefix}:tus:`),
    expirationPeriodInMilliseconds: TUS_EXPIRATION_MS,
  });
}
