import { createHash, randomUUID } from 'node:crypto';
import { closeSync, createReadStream, type Dirent, fstat, open as openCallback } from 'node:fs';
import { link, mkdir, opendir, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { FileWriter } from './file-writer.js';
import type { ByteRange, ListedObject, ObjectBody, PutOptions, StorageDriver, StoredObject, WrittenObject } from './storage-driver.js';

// How far the disk may fall behind the sender before reading pauses (FileWriter: docs/decisions.md).
const WRITE_AHEAD = 4 * 1024 * 1024;
// Chunks of reads that stream a file out: fewer, larger writes to the socket for big files.
const READ_CHUNK = 256 * 1024;
// A scan of a whole directory reads this many entries per call (Node's default, 32, takes twice as long).
const DIR_BATCH = 1024;
// Unlinks in flight at once: enough to keep the thread pool busy.
const DELETES_AT_ONCE = 8;
const openFd = promisify(openCallback);
const fstatFd = promisify(fstat);

/**
 * Objects as files under `root`. A put writes straight to the object's own path: keys are fresh and
 * immutable, and no file row names a key before its put has finished, so nobody can read a partial
 * object. A put that fails removes what it wrote.
 */
export class LocalDriver implements StorageDriver {
  readonly name = 'local' as const;
  // Directories that are known to exist, so a put does not ask the filesystem again.
  private readonly madeDirs = new Set<string>();

  constructor(private readonly root: string) {}

  async put(key: string, body: Readable, options: PutOptions = {}): Promise<WrittenObject> {
    const target = this.pathOf(key);
    await this.ensureDir(path.dirname(target));
    if (!options.whole) return this.write(target, body, options);
    // Written beside the key under a name that is no key (it has dots), then linked into place: a
    // link, unlike a rename, never replaces what another put of the key finished first.
    const part = `${target}.${randomUUID()}.part`;
    try {
      const written = await this.write(part, body, options);
      await link(part, target);
      return written;
    } finally {
      await rm(part, { force: true });
    }
  }

  private async write(target: string, body: Readable, options: PutOptions): Promise<WrittenObject> {
    const hash = createHash('sha256');
    const file = new FileWriter(target, WRITE_AHEAD, options.maxBytes, 'wx', hash);
    try {
      await pipeline(body, file, options.signal ? { signal: options.signal } : {});
    } catch (err) {
      // Closed before the removal, or the file would appear after it; one this put did not create
      // (the open failed: the key exists) is not its to remove.
      if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()));
      if (file.created) await rm(target, { force: true });
      throw err;
    }
    return { size: file.bytes, sha256: hash.digest('hex') };
  }

  async get(key: string, range?: ByteRange): Promise<ObjectBody | null> {
    // Opening first pins the inode: a replace or delete that lands meanwhile cannot tear this read.
    // A plain fd, not a FileHandle: its stream reads with callbacks, without a promise and an
    // AbortSignal per chunk (a fifth of the CPU of serving 100 KB files).
    let fd: number;
    try {
      fd = await openFd(this.pathOf(key), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    try {
      const { size } = await fstatFd(fd);
      const body = createReadStream('', { fd, highWaterMark: READ_CHUNK, ...(range ? { start: range.start, end: range.end } : {}) });
      return { body, size };
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** Where the object lives on disk, for a front proxy that sends it (X-Sendfile). */
  localPath(key: string): string {
    return path.resolve(this.pathOf(key));
  }

  async head(key: string): Promise<StoredObject | null> {
    const info = await this.statOf(key);
    return info && { size: info.size };
  }

  async delete(key: string): Promise<void> {
    try {
      await unlink(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }

  list(prefix: string): AsyncIterable<ListedObject> {
    // As on S3 a prefix need not end at a '/': the walk starts in the directory that holds it.
    return this.walk(prefix.slice(0, prefix.lastIndexOf('/') + 1), prefix);
  }

  async deletePrefixed(prefixes: readonly string[]): Promise<number> {
    // Grouped by the directory that holds them: each directory is read once for all of its prefixes.
    const byDir = new Map<string, Set<string>>();
    for (const prefix of prefixes) {
      const dirKey = prefix.slice(0, prefix.lastIndexOf('/') + 1);
      const names = byDir.get(dirKey) ?? new Set<string>();
      byDir.set(dirKey, names.add(prefix.slice(dirKey.length)));
    }
    const doomed: string[] = [];
    for (const [dirKey, names] of byDir) {
      const lengths = [...new Set([...names].map((name) => name.length))];
      const matches = (name: string) => lengths.some((length) => names.has(name.slice(0, length)));
      for await (const entry of this.entriesOf(dirKey)) {
        const key = dirKey + entry.name;
        if (!matches(entry.name) || !isKey(key)) continue;
        if (entry.isDirectory()) for await (const object of this.walk(`${key}/`, `${key}/`)) doomed.push(object.key);
        else doomed.push(key);
      }
    }
    await this.deleteMany(doomed);
    return doomed.length;
  }

  async deleteMany(keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += DELETES_AT_ONCE) await Promise.all(keys.slice(i, i + DELETES_AT_ONCE).map((key) => this.delete(key)));
  }

  /** Objects under the directory `dirKey` (a key prefix ending in '/', or '' for the root). */
  private async *walk(dirKey: string, prefix: string): AsyncGenerator<ListedObject> {
    for await (const entry of this.entriesOf(dirKey)) {
      const key = dirKey + entry.name;
      // A file no put could have written (not a key) is none of this store's business.
      if (!key.startsWith(prefix) || !isKey(key)) continue;
      if (entry.isDirectory()) yield* this.walk(`${key}/`, prefix);
      else if (entry.isFile()) {
        // Removed since the directory was read: nothing to list.
        const info = await this.statOf(key);
        if (info) yield { key, modifiedAt: info.mtime };
      }
    }
  }

  /** The entries of the directory `dirKey` (none if it is missing), a batch at a time: a directory of millions is never held at once. */
  private async *entriesOf(dirKey: string): AsyncGenerator<Dirent> {
    let dir;
    try {
      dir = await opendir(dirKey ? this.pathOf(dirKey) : this.root, { bufferSize: DIR_BATCH });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    yield* dir;
  }

  private async statOf(key: string) {
    try {
      return await stat(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  private async ensureDir(dir: string) {
    if (this.madeDirs.has(dir)) return;
    await mkdir(dir, { recursive: true });
    this.madeDirs.add(dir);
  }

  private pathOf(key: string): string {
    // Keys are generated by us, but a key must never climb out of the root whatever it holds.
    if (!isKey(key)) throw new Error(`Invalid object key: ${key}`);
    return path.join(this.root, key);
  }
}

function isKey(key: string): boolean {
  return /^[a-z0-9][a-z0-9/_-]*$/i.test(key) && !key.includes('..');
}
