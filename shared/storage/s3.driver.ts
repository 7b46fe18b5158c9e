import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isAppError } from '../errors.js';
import { ByteLimit } from './byte-limit.js';
import type { ByteRange, ListedObject, ObjectBody, PresignOptions, PutOptions, StorageDriver, StoredObject, WrittenObject } from './storage-driver.js';

export interface S3Options {
  bucket: string;
  endpoint?: string | undefined;
  region: string;
  forcePathStyle: boolean;
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
}

// One DeleteObjects request takes at most 1000 keys; listings of that many prefixes run at once.
const DELETE_BATCH = 1000;
const LISTS_AT_ONCE = 8;

// lib-storage holds at most queueSize × partSize in memory per upload, whatever the file size.
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;

/** Any S3-compatible store; puts stream through a multipart upload that is aborted on failure. */
export class S3Driver implements StorageDriver {
  readonly name = 's3' as const;
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(options: S3Options) {
    const config: S3ClientConfig = {
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.accessKeyId && options.secretAccessKey
        ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
        : {}),
    };
    this.client = new S3Client(config);
    this.bucket = options.bucket;
  }

  async put(key: string, body: Readable, options: PutOptions = {}): Promise<WrittenObject> {
    const hash = createHash('sha256');
    const limit = new ByteLimit(options.maxBytes, hash);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: limit, ...(options.contentType ? { ContentType: options.contentType } : {}) },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    const results = await Promise.allSettled([pipeline(body, limit, options.signal ? { signal: options.signal } : {}), upload.done()]);
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    if (failures.length > 0) {
      await upload.abort().catch(() => undefined);
      // A completed single-part put may have landed before the source failed: make sure nothing stays.
      await this.delete(key).catch(() => undefined);
      throw failures.find(isAppError) ?? failures[0];
    }
    return { size: limit.bytes, sha256: hash.digest('hex') };
  }

  presignGet(key: string, options: PresignOptions): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentType: options.contentType,
      ResponseCacheControl: options.cacheControl,
      ...(options.contentDisposition ? { ResponseContentDisposition: options.contentDisposition } : {}),
    });
    return getSignedUrl(this.client, command, { expiresIn: options.expiresInSeconds });
  }

  async get(key: string, range?: ByteRange): Promise<ObjectBody | null> {
    try {
      const res = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
      const total = res.ContentRange ? Number(res.ContentRange.split('/')[1]) : Number(res.ContentLength ?? 0);
      return { body: res.Body as Readable, size: total };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async head(key: string): Promise<StoredObject | null> {
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: Number(res.ContentLength ?? 0) };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    // The paginator asks for the next page (up to 1000 keys) only when this one has been consumed.
    for await (const page of paginateListObjectsV2({ client: this.client }, { Bucket: this.bucket, Prefix: prefix })) {
      for (const object of page.Contents ?? []) {
        if (object.Key && object.LastModified) yield { key: object.Key, modifiedAt: object.LastModified };
      }
    }
  }

  async deletePrefixed(prefixes: readonly string[]): Promise<number> {
    // S3 lists one prefix per request; prefixes may overlap.
    const found = new Set<string>();
    for (let i = 0; i < prefixes.length; i += LISTS_AT_ONCE) {
      await Promise.all(
        prefixes.slice(i, i + LISTS_AT_ONCE).map(async (prefix) => {
          for await (const object of this.list(prefix)) found.add(object.key);
        }),
      );
    }
    await this.deleteMany([...found]);
    return found.size;
  }

  async deleteMany(keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      const res = await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
      const failed = res.Errors ?? [];
      if (failed.length > 0) throw new Error(`S3 could not delete ${failed.length} object(s), e.g. ${failed[0]!.Key}: ${failed[0]!.Code} ${failed[0]!.Message}`);
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}
