import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isAppError } from '../../shared/errors.js';
import { deleteWithDerived } from '../../shared/services/media/thumbnails/thumbnail-keys.js';
import { LocalDriver } from '../../shared/storage/local.driver.js';
import { S3Driver } from '../../shared/storage/s3.driver.js';
import { newObjectKey, type ListedObject, type StorageDriver } from '../../shared/storage/index.js';
import { startRecordingProxy, startS3rver, type S3rverHandle } from '../helpers/s3rver.js';
import { failingStream, hashSink, repeatedStream, sha256Of } from '../helpers/streams.js';

const MB = 1024 * 1024;

interface DriverCase {
  name: string;
  start(): Promise<{ driver: StorageDriver; leftovers(): Promise<string[]>; stop(): Promise<void> }>;
}

const cases: DriverCase[] = [
  {
    name: 'local',
    async start() {
      const root = await mkdtemp(path.join(tmpdir(), 'hfs-local-'));
      return {
        driver: new LocalDriver(root),
        // Partial files of failed writes must never stay behind (the tests before delete theirs).
        leftovers: async () => readdir(path.join(root, 'objects')).catch(() => []),
        stop: () => rm(root, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 's3 (s3rver)',
    async start() {
      const s3: S3rverHandle = await startS3rver();
      // s3rver implements neither ListMultipartUploads nor AbortMultipartUpload, so a recording proxy
      // in front of it tells which multipart uploads were started and not completed or aborted.
      const proxy = await startRecordingProxy(s3.endpoint);
      const driver = new S3Driver({
        bucket: s3.bucket,
        endpoint: proxy.url,
        region: 'us-east-1',
        forcePathStyle: true,
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
      });
      return {
        driver,
        leftovers: async () => proxy.openMultipartUploads(),
        stop: async () => {
          await driver.close();
          await proxy.close();
          await s3.stop();
        },
      };
    },
  },
];

for (const driverCase of cases) {
  describe(`storage driver: ${driverCase.name}`, function () {
    this.timeout(180_000);
    let driver: StorageDriver;
    let leftovers: () => Promise<string[]>;
    let stop: () => Promise<void>;

    before(async () => {
      ({ driver, leftovers, stop } = await driverCase.start());
    });
    after(() => stop());

    it('round-trips the exact bytes, heads, and deletes; a put answers the SHA-256 of what it stored', async () => {
      const key = newObjectKey();
      const data = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 251));
      expect(await driver.put(key, Readable.from([data]), { contentType: 'image/png' })).to.deep.equal({ size: data.length, sha256: sha256Of(data) });
      expect(await driver.head(key)).to.deep.equal({ size: data.length });
      const got = await driver.get(key);
      expect(got!.size).to.equal(data.length);
      const sink = hashSink();
      await pipeline(got!.body, sink);
      expect(sink.digest()).to.equal(sha256Of(data));
      await driver.delete(key);
      expect(await driver.head(key)).to.equal(null);
      expect(await driver.get(key)).to.equal(null);
      await driver.delete(key); // deleting a missing object is not an error
    });

    it('reads byte ranges; size is the whole object', async () => {
      const key = newObjectKey();
      const data = Buffer.from(Array.from({ length: 10_000 }, (_, i) => i % 256));
      await driver.put(key, Readable.from([data]));
      const got = await driver.get(key, { start: 1000, end: 1999 });
      expect(got!.size).to.equal(10_000);
      const chunks: Buffer[] = [];
      for await (const chunk of got!.body) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).equals(data.subarray(1000, 2000))).to.equal(true);
      await driver.delete(key);
    });

    it('refuses a body over the ceiling with 413 while streaming, and keeps nothing', async () => {
      const key = newObjectKey();
      let error: unknown;
      try {
        await driver.put(key, repeatedStream(Buffer.alloc(MB, 7), 12), { maxBytes: 10 * MB });
      } catch (err) {
        error = err;
      }
      expect(isAppError(error) && error.status).to.equal(413);
      expect(await driver.head(key)).to.equal(null);
      expect(await leftovers()).to.deep.equal([]);
    });

    it('keeps nothing when the source fails midway', async () => {
      const key = newObjectKey();
      let error: unknown;
      try {
        await driver.put(key, failingStream(20 * MB));
      } catch (err) {
        error = err;
      }
      expect((error as Error)?.message).to.match(/source failed midway/);
      expect(await driver.head(key)).to.equal(null);
      expect(await leftovers()).to.deep.equal([]);
    });

    it('shows a whole put only once it has finished, and a failed one never', async () => {
      const key = `${newObjectKey()}_w640-qd-webp`;
      const source = new PassThrough();
      const put = driver.put(key, source, { whole: true });
      source.write(Buffer.alloc(64 * 1024, 1));
      // Halfway through, readers find nothing under the key (they make it themselves or wait).
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await driver.head(key)).to.equal(null);
      source.end(Buffer.alloc(64 * 1024, 2));
      expect((await put).size).to.equal(128 * 1024);
      expect(await driver.head(key)).to.deep.equal({ size: 128 * 1024 });
      // A second put of the same key (another process made it too) leaves the first whole.
      await driver.put(key, Readable.from([Buffer.alloc(10, 3)]), { whole: true }).catch((err: NodeJS.ErrnoException) => expect(err.code).to.equal('EEXIST'));
      expect((await driver.head(key))!.size).to.be.oneOf([128 * 1024, 10]);
      await driver.delete(key);

      const failed = `${newObjectKey()}_w64-qd-webp`;
      await driver.put(failed, failingStream(2 * MB), { whole: true }).catch(() => undefined);
      expect(await driver.head(failed)).to.equal(null);
      expect(await leftovers()).to.deep.equal([]);
    });

    it('lists the objects under a prefix, with when each was last modified', async () => {
      const startedAt = Date.now();
      const keys = [newObjectKey(), newObjectKey(), newObjectKey()];
      const elsewhere = `elsewhere/${crypto.randomUUID()}`;
      for (const key of [...keys, elsewhere]) await driver.put(key, Readable.from([Buffer.from(key)]));
      const listed = await listAll(driver, 'objects/');
      expect(listed.map((o) => o.key)).to.include.members(keys);
      expect(listed.map((o) => o.key)).to.not.include(elsewhere);
      for (const { key, modifiedAt } of listed.filter((o) => keys.includes(o.key))) {
        // S3 dates objects to the second.
        expect(modifiedAt.getTime(), key).to.be.within(startedAt - 1000, Date.now());
      }
      // A prefix need not end at a '/'.
      expect((await listAll(driver, keys[0]!.slice(0, -6))).map((o) => o.key)).to.deep.equal([keys[0]]);
      expect(await listAll(driver, 'nothing-here/')).to.deep.equal([]);
      for (const key of [...keys, elsewhere]) await driver.delete(key);
      expect((await listAll(driver, 'objects/')).filter((o) => keys.includes(o.key))).to.deep.equal([]);
    });

    it('lists past the first page (S3 answers at most 1000 keys per request)', async () => {
      const prefix = `paged-${crypto.randomUUID()}/`;
      const keys = Array.from({ length: 1005 }, (_, i) => `${prefix}${String(i).padStart(4, '0')}`);
      for (let i = 0; i < keys.length; i += 50) {
        await Promise.all(keys.slice(i, i + 50).map((key) => driver.put(key, Readable.from([Buffer.from('x')]))));
      }
      const listed = await listAll(driver, prefix);
      expect(listed.map((o) => o.key).sort()).to.deep.equal(keys);
      for (let i = 0; i < keys.length; i += 50) await Promise.all(keys.slice(i, i + 50).map((key) => driver.delete(key)));
    });

    it('deletes every object under any of many prefixes at once, and nothing else', async () => {
      const gone = [newObjectKey(), newObjectKey(), newObjectKey()];
      const kept = newObjectKey();
      const folder = `nested-${crypto.randomUUID()}/`;
      const stored = [...gone, `${gone[0]}_thumb`, `${gone[1]}_w640-q80-webp`, kept, `${kept}_thumb`, `${folder}a`, `${folder}b/c`];
      for (const key of stored) await driver.put(key, Readable.from([Buffer.from(key)]));
      expect(await driver.deletePrefixed([...gone, 'objects/none-such', folder])).to.equal(7);
      const left = [...(await listAll(driver, 'objects/')), ...(await listAll(driver, folder))].map((o) => o.key);
      expect(left.filter((key) => stored.includes(key)).sort()).to.deep.equal([kept, `${kept}_thumb`].sort());
      expect(await driver.deletePrefixed([])).to.equal(0);
      expect(await driver.deletePrefixed([kept])).to.equal(2);
    });

    it('deletes many objects by name at once, missing ones too, and nothing else', async () => {
      const gone = Array.from({ length: 3 }, () => newObjectKey());
      const kept = newObjectKey();
      for (const key of [...gone, kept]) await driver.put(key, Readable.from([Buffer.from(key)]));
      await driver.deleteMany([...gone, `${gone[0]}_never-made`, newObjectKey()]);
      for (const key of gone) expect(await driver.head(key), key).to.equal(null);
      expect(await driver.head(kept)).to.not.equal(null);
      await driver.deleteMany([]);
      await driver.delete(kept);
    });

    for (const count of [1, 6]) {
      it(`deletes ${count} object(s) with their thumbnails and renditions (deleteWithDerived), and nothing else`, async () => {
        const gone = Array.from({ length: count }, () => newObjectKey());
        const kept = newObjectKey();
        const stored = [...gone.flatMap((key) => [key, `${key}_small`, `${key}_preview`, `${key}_w640-q80-webp`, `${key}_w0-qd-gif`]), kept, `${kept}_small`];
        for (const key of stored) await driver.put(key, Readable.from([Buffer.from(key)]));
        await deleteWithDerived(driver, gone);
        const left = (await listAll(driver, 'objects/')).map((o) => o.key).filter((key) => stored.includes(key));
        expect(left.sort()).to.deep.equal([kept, `${kept}_small`].sort());
        await driver.deletePrefixed([kept]);
      });
    }

    it('streams a 64 MB body in and out byte for byte (its memory cost is measured by npm run bench -- storage)', async () => {
      const key = newObjectKey();
      const chunk = Buffer.alloc(MB, 42);
      const expected = createHash('sha256');
      for (let i = 0; i < 64; i++) expected.update(chunk);
      const sink = hashSink();
      const digest = expected.digest('hex');
      expect(await driver.put(key, repeatedStream(chunk, 64))).to.deep.equal({ size: 64 * MB, sha256: digest });
      await pipeline((await driver.get(key))!.body, sink);
      expect(sink.bytes).to.equal(64 * MB);
      expect(sink.digest()).to.equal(digest);
      await driver.delete(key);
    });
  });
}

async function listAll(driver: StorageDriver, prefix: string): Promise<ListedObject[]> {
  const listed: ListedObject[] = [];
  for await (const object of driver.list(prefix)) listed.push(object);
  return listed;
}
