import type { Readable } from 'node:stream';
import type { FileRow } from '../../../db/schema.js';
import { AppError } from '../../../errors.js';
import { readDigest, type StorageDriver, type WrittenObject } from '../../../storage/index.js';
import { withObjectFile } from '../media-source.js';
import { derivedPrefixOf } from '../thumbnails/thumbnail-keys.js';
import { OUTPUT_TYPES, type RenditionRequest, type RenditionVariant, variantName, variantOf } from './rendition-params.js';
import { type RenditionLimits, refusalOf, renderRendition } from './rendition-renderer.js';

// SVG is drawn by browsers themselves, and rasterising untrusted SVG would only add a parser to attack.
const RENDERED_TYPES = /^image\/(?!svg)/;
// Requests waiting for a rendering slot beyond these are told to come back (a burst of new sizes).
const MAX_WAITING = 64;
const RETRY_AFTER_SECONDS = 5;

/** A rendition to serve: its own row (the file's, with the rendition's object, size and type). */
export interface ServedRendition {
  file: FileRow;
  variesByAccept: boolean;
}

/**
 * Renditions of hosted images (`?w=640&format=webp&q=80`): made with sharp on the first request,
 * under a per-process cap, and stored beside the file's object (`objects/{uuid}_w640-q80-webp`), so
 * they are removed with it and served from then on like any object. Whether the file may be served
 * at all is decided before, by the same rules as the original's.
 */
export class RenditionService {
  // The rows this process has served, by the file row they come from: the serving path's header
  // cache and memory cache take them as they take the file's own.
  private readonly served = new WeakMap<FileRow, Map<string, FileRow>>();
  private readonly looking = new Map<string, Promise<WrittenObject>>();
  private readonly slots: Slots;

  constructor(
    private readonly deps: {
      storage: StorageDriver;
      limits: RenditionLimits;
      concurrency: number;
    },
  ) {
    this.slots = new Slots(deps.concurrency);
  }

  isRendered(mimeType: string): boolean {
    return RENDERED_TYPES.test(mimeType);
  }

  /** The rendition this request names, made now if it has not been; 422 for what cannot be rendered. */
  async serve(file: FileRow, request: RenditionRequest, accept: string | undefined): Promise<ServedRendition> {
    if (!this.isRendered(file.mimeType)) throw new AppError(422, 'unprocessable_image', 'Renditions are made of images only');
    const variant = variantOf(request, file.mimeType, accept);
    const name = variantName(variant);
    const known = this.served.get(file)?.get(name);
    if (known) return { file: known, variesByAccept: variant.variesByAccept };
    const key = renditionObjectKey(file.objectKey, name);
    const { size, sha256 } = await this.storedOrMade(file, variant, key);
    return { file: this.remember(file, name, { ...file, objectKey: key, size, mimeType: OUTPUT_TYPES[variant.format], sha256 }), variesByAccept: variant.variesByAccept };
  }

  /** `serve`'s answer when this process has served it before (the fast path); undefined otherwise. */
  peek(file: FileRow, request: RenditionRequest, accept: string | undefined): ServedRendition | undefined {
    const variants = this.served.get(file);
    if (!variants) return undefined;
    const variant = variantOf(request, file.mimeType, accept);
    const known = variants.get(variantName(variant));
    return known && { file: known, variesByAccept: variant.variesByAccept };
  }

  /** The stored renditions of an object, by their variant names. */
  async *storedOf(objectKey: string): AsyncGenerator<string> {
    const prefix = `${derivedPrefixOf(objectKey)}w`;
    for await (const { key } of this.deps.storage.list(prefix)) yield key.slice(objectKey.length + 1);
  }

  private remember(file: FileRow, name: string, row: FileRow): FileRow {
    let variants = this.served.get(file);
    if (!variants) this.served.set(file, (variants = new Map()));
    variants.set(name, row);
    return row;
  }

  /**
   * The rendition's size and SHA-256, once per process at a time: one stored already (by another process)
   * is read through for its digest (`Repr-Digest`, as the original's); else it is made and stored, and
   * another process making it meanwhile is fine.
   */
  private storedOrMade(file: FileRow, variant: RenditionVariant, key: string): Promise<WrittenObject> {
    let pending = this.looking.get(key);
    if (!pending) {
      pending = readDigest(this.deps.storage, key)
        .then((stored) => stored ?? this.render(file, variant, key))
        .finally(() => this.looking.delete(key));
      this.looking.set(key, pending);
    }
    return pending;
  }

  private async render(file: FileRow, variant: RenditionVariant, key: string): Promise<WrittenObject> {
    const { storage, limits } = this.deps;
    await this.slots.take();
    try {
      const written = await withObjectFile(storage, file.objectKey, undefined, async (path) => {
        const output = await renderRendition(path, file.mimeType, variant, limits);
        let renderError: Error | undefined;
        output.once('error', (err: Error) => (renderError = err));
        try {
          return await storage.put(key, output as Readable, { contentType: OUTPUT_TYPES[variant.format], whole: true });
        } catch (err) {
          if (renderError) throw refusalOf(renderError);
          // Another process stored it first.
          if ((err as NodeJS.ErrnoException).code === 'EEXIST') return (await readDigest(storage, key)) ?? Promise.reject(err);
          throw err;
        }
      });
      if (written === 'gone') throw AppError.notFound('File not found');
      return written;
    } finally {
      this.slots.give();
    }
  }
}

/** Where a rendition of `objectKey` is stored: beside it, under the prefix its thumbnails use too. */
export function renditionObjectKey(objectKey: string, variantName: string): string {
  return derivedPrefixOf(objectKey) + variantName;
}

/** A per-process cap on renditions being made; a long queue is answered 503 rather than held. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async take(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    if (this.waiting.length >= MAX_WAITING) throw AppError.unavailable('Busy making renditions; retry shortly', RETRY_AFTER_SECONDS);
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free += 1;
  }
}
