import type { Readable } from 'node:stream';

export interface ByteRange {
  /** inclusive */
  start: number;
  /** inclusive */
  end: number;
}

export interface StoredObject {
  size: number;
}

/** What a put stored: its size and its SHA-256 (hex), both taken from the bytes as they streamed in. */
export interface WrittenObject extends StoredObject {
  sha256: string;
}

export interface ObjectBody {
  body: Readable;
  /** size of the whole object */
  size: number;
}

export interface ListedObject {
  key: string;
  modifiedAt: Date;
}

export interface PutOptions {
  /** The write fails with 413 as soon as more than this many bytes arrive; nothing is kept. */
  maxBytes?: number;
  contentType?: string;
  signal?: AbortSignal;
  /**
   * Readers may ask for this key while it is written (a rendition made on request): it appears only
   * once whole, and a second put of the same key fails (EEXIST on disk) or stores the same bytes again.
   */
  whole?: boolean;
}

export interface PresignOptions {
  expiresInSeconds: number;
  contentType: string;
  contentDisposition?: string | undefined;
  cacheControl: string;
}

/**
 * Object storage takes and gives streams only. Keys are immutable (`objects/{uuid}`): a put either
 * stores the whole body under its key or leaves nothing behind.
 */
export interface StorageDriver {
  readonly name: 'local' | 's3';
  put(key: string, body: Readable, options?: PutOptions): Promise<WrittenObject>;
  /** Resolves null when the object does not exist. */
  get(key: string, range?: ByteRange): Promise<ObjectBody | null>;
  head(key: string): Promise<StoredObject | null>;
  /** Deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Local disk: the object's absolute path, for a front proxy that sends it (X-Sendfile). */
  localPath?(key: string): string;
  /** S3: a URL that GETs the object without credentials until it expires, with these response headers. */
  presignGet?(key: string, options: PresignOptions): Promise<string>;
  /** Every object whose key starts with `prefix`, in no set order, read a page at a time. */
  list(prefix: string): AsyncIterable<ListedObject>;
  /**
   * Deletes every object whose key starts with one of `prefixes` and answers how many: many objects
   * with what is stored beside them at once, where a `list` each would read the whole directory on
   * disk once per prefix.
   */
  deletePrefixed(prefixes: readonly string[]): Promise<number>;
  /** Deletes these objects, as few requests as the store allows; a missing one is no error. */
  deleteMany(keys: readonly string[]): Promise<void>;
  close?(): Promise<void>;
}
