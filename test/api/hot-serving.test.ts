import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { files } from '../../shared/db/schema.js';
import { FileBodyCache } from '../../shared/services/files/file-body-cache.js';
import { eventually } from '../helpers/eventually.js';
import { startFakeVision } from '../helpers/fake-vision.js';
import { pngBytes } from '../helpers/media.js';
import { freePort } from '../helpers/ports.js';
import { s3EnvOf, startS3rver, type S3rverHandle } from '../helpers/s3rver.js';
import { createTestEnv, startSecondWebProcess, type TestEnv } from '../helpers/test-env.js';
import { getWithHost, upload } from '../helpers/uploads.js';

// Headers that differ from one answer to the next whoever sends it.
const VOLATILE = new Set(['date', 'x-request-id', 'server-timing', 'connection', 'keep-alive']);
const stable = (headers: Record<string, unknown>) => Object.fromEntries(Object.entries(headers).filter(([name]) => !VOLATILE.has(name)));

describe('serving hot files from memory', () => {
  let env: TestEnv;
  let alice: { id: string; username: string; apiKey: string };

  before(async () => {
    env = await createTestEnv();
    alice = await env.createAccount();
  });
  after(() => env.close());

  async function uploaded(bytes: Buffer, name = 'picture.png') {
    const res = await upload(env, { key: alice.apiKey, bytes, name, json: true });
    expect(res.status).to.equal(200);
    return res.body.data as { url: string; filename: string };
  }

  it('answers a hot file exactly as the first, cold answer did: status, headers and bytes', async () => {
    const bytes = pngBytes(20_000, 11);
    const { url } = await uploaded(bytes);
    const cold = await getWithHost(url);
    const hot = await getWithHost(url);
    // The ETag names the object: its bytes are in memory now.
    expect(env.container.services.hosted.bodies.get(`objects/${String(hot.headers.etag).replaceAll('"', '')}`)).to.not.equal(undefined);
    expect(hot.status).to.equal(200);
    expect(stable(hot.headers)).to.deep.equal(stable(cold.headers));
    expect(hot.body.equals(bytes)).to.equal(true);

    const head = await getWithHost(url, {}, 'HEAD');
    expect(head.status).to.equal(200);
    expect(stable(head.headers)).to.deep.equal(stable(cold.headers));
    expect(head.body.length).to.equal(0);

    const revalidated = await getWithHost(url, { 'if-none-match': String(cold.headers.etag) });
    expect(revalidated.status).to.equal(304);
    expect(revalidated.headers.etag).to.equal(cold.headers.etag);
    expect(revalidated.body.length).to.equal(0);

    const part = await getWithHost(url, { range: 'bytes=10-19' });
    expect(part.status).to.equal(206);
    expect(part.body.equals(bytes.subarray(10, 20))).to.equal(true);
  });

  it('downloads documents instead of rendering them, from memory as before', async () => {
    const { filename } = await uploaded(pngBytes(300, 14));
    const renamed = await env.api.put(`/api/user/images/${filename}/rename`, { key: alice.apiKey, json: { newFilename: 'feed.rdf' } });
    expect(renamed.status).to.equal(200);
    const url = renamed.body.newUrl as string;
    const cold = await getWithHost(url);
    const hot = await getWithHost(url);
    expect(hot.status).to.equal(200);
    expect(stable(hot.headers)).to.deep.equal(stable(cold.headers));
    expect(hot.headers['content-disposition']).to.match(/^attachment/);
  });

  it('never serves a private file unsigned, even when it was hot a moment before', async () => {
    const { url, filename } = await uploaded(pngBytes(3000, 12));
    expect((await getWithHost(url)).status).to.equal(200);
    expect((await getWithHost(url)).status).to.equal(200);
    const res = await env.api.patch(`/api/user/images/${filename}/privacy`, { key: alice.apiKey, json: { isPrivate: true } });
    expect(res.status).to.equal(200);
    expect((await getWithHost(url)).status).to.equal(404);
    const signed = await getWithHost(res.body.data.url as string);
    expect(signed.status).to.equal(200);
    expect(signed.headers['cache-control']).to.equal('private, no-store');
  });

  it('stops serving an expired file the moment it expires, hot or not', async () => {
    const { url, filename } = await uploaded(pngBytes(3000, 13));
    await env.container.db.update(files).set({ expiresAt: new Date(Date.now() + 1500) }).where(eq(files.filename, filename));
    // Hot with its expiry time: no purge tells anyone when that time comes.
    expect((await getWithHost(url)).status).to.equal(200);
    expect((await getWithHost(url)).status).to.equal(200);
    await eventually(async () => (await getWithHost(url)).status === 404, 5000);
  });
});

describe('the in-memory byte cache', () => {
  const streamOf = (bytes: Buffer) => async () => Readable.from([bytes.subarray(0, 7), bytes.subarray(7)]);

  it('never holds more than its budget: room is made by emptying the oldest block of bodies', async () => {
    // Blocks of 10,000 bytes (its largest file), two of them: one 8,000-byte body each.
    const cache = new FileBodyCache(25_000, 10_000);
    for (let i = 0; i < 10; i++) {
      await cache.load(`objects/${i}`, 8000, streamOf(Buffer.alloc(8000, i)));
      expect(cache.size).to.be.at.most(16_000);
    }
    expect(cache.get('objects/9')!.equals(Buffer.alloc(8000, 9))).to.equal(true);
    expect(cache.get('objects/8')!.equals(Buffer.alloc(8000, 8))).to.equal(true);
    expect(cache.get('objects/7')).to.equal(undefined);
  });

  it('moves a body read since it was kept on, rather than out, and never overwrites one being sent', async () => {
    // Four blocks of 10,000 bytes, two 4,000-byte bodies in each.
    const cache = new FileBodyCache(40_000, 10_000);
    const sent = new Map<string, Buffer>();
    for (const name of 'abcdefgh') sent.set(name, (await cache.load(name, 4000, streamOf(Buffer.alloc(4000, name))))!);
    expect(cache.size).to.equal(32_000);
    cache.get('a');
    // No room: the oldest block (a, b) is emptied; a was read since, so it moves to a new block.
    await cache.load('i', 4000, streamOf(Buffer.alloc(4000, 'i')));
    expect(cache.get('a')!.equals(Buffer.alloc(4000, 'a'))).to.equal(true);
    expect(cache.get('b')).to.equal(undefined);
    expect(cache.get('i')!.equals(Buffer.alloc(4000, 'i'))).to.equal(true);
    expect(cache.size).to.equal(32_000);
    // Bodies handed out before their block was emptied keep their bytes: blocks are never written over.
    for (const name of 'jklmnopq') await cache.load(name, 4000, streamOf(Buffer.alloc(4000, name)));
    expect(cache.get('c')).to.equal(undefined);
    for (const [name, body] of sent) expect(body.equals(Buffer.alloc(4000, name)), name).to.equal(true);
  });

  it('keeps nothing larger than its largest file, and reads a file once for concurrent misses', async () => {
    const cache = new FileBodyCache(100_000, 10_000);
    expect(cache.accepts(10_001)).to.equal(false);
    expect(await cache.load('objects/big', 12_000, streamOf(Buffer.alloc(12_000)))).to.equal(undefined);
    expect(cache.size).to.equal(0);
    let opens = 0;
    const open = async () => (opens++, Readable.from([Buffer.alloc(5000, 1)]));
    const [a, b] = await Promise.all([cache.load('objects/x', 5000, open), cache.load('objects/x', 5000, open)]);
    expect(opens).to.equal(1);
    expect(a!.equals(b!)).to.equal(true);
    cache.drop(['objects/x']);
    expect(cache.size).to.equal(0);
  });

  it('once full, lets a file in only when it is hot (requested three times within a minute): one-off reads are streamed, not kept', async () => {
    const cache = new FileBodyCache(30_000, 10_000, 3);
    for (let i = 0; i < 3; i++) await cache.load(`objects/${i}`, 8000, streamOf(Buffer.alloc(8000, i)));
    expect(cache.size).to.equal(24_000);
    let opens = 0;
    const open = async () => (opens++, Readable.from([Buffer.alloc(8000, 7)]));
    expect(await cache.load('objects/new', 8000, open)).to.equal(undefined);
    expect(await cache.load('objects/new', 8000, open)).to.equal(undefined);
    // Nothing was read for the refusals (the caller streams from storage), and nothing was evicted.
    expect(opens).to.equal(0);
    expect(cache.get('objects/0')).to.not.equal(undefined);
    expect(cache.get('objects/1')).to.not.equal(undefined);
    expect((await cache.load('objects/new', 8000, open))!.equals(Buffer.alloc(8000, 7))).to.equal(true);
    expect(opens).to.equal(1);
    // In, at the cost of objects/2, the one not read since it was kept (0 and 1 move on).
    expect(cache.get('objects/2')).to.equal(undefined);
    expect(cache.size).to.equal(24_000);
    // Removed files start counting again.
    cache.drop(['objects/new']);
    expect(cache.size).to.equal(16_000);
  });

  it('holds at most FILE_MEMORY_CACHE_BYTES in a web process serving many files', async () => {
    const env = await createTestEnv({ env: { FILE_MEMORY_CACHE_BYTES: '40000', FILE_MEMORY_CACHE_MAX_FILE_BYTES: '16000' } });
    try {
      const bob = await env.createAccount();
      const bodies = env.container.services.hosted.bodies;
      for (let i = 0; i < 8; i++) {
        const res = await upload(env, { key: bob.apiKey, bytes: pngBytes(15_000, i), json: true });
        for (let n = 0; n < 2; n++) expect((await getWithHost(res.body.data.url)).status).to.equal(200);
        expect(bodies.size).to.be.at.most(40_000);
      }
      expect(bodies.size).to.be.above(0);
      // Larger than the largest kept file: served from storage, not kept.
      const big = await upload(env, { key: bob.apiKey, bytes: pngBytes(30_000, 99), json: true });
      const before = bodies.size;
      const served = await getWithHost(big.body.data.url);
      expect(served.body.equals(pngBytes(30_000, 99))).to.equal(true);
      expect(bodies.size).to.equal(before);
    } finally {
      await env.close();
    }
  });
});

describe('a hot file changed in one web process, read from another', function () {
  this.timeout(60_000);
  let env: TestEnv;
  let second: Awaited<ReturnType<typeof startSecondWebProcess>>;
  let vision: Awaited<ReturnType<typeof startFakeVision>>;
  let alice: { id: string; username: string; apiKey: string };

  before(async () => {
    const port = await freePort();
    vision = await startFakeVision(port);
    env = await createTestEnv({ workers: true, env: { MODERATION_ENABLED: 'true', VISION_URL: `http://127.0.0.1:${port}` } });
    second = await startSecondWebProcess(env);
    alice = await env.createAccount();
  });
  after(async () => {
    await second.close();
    await env.close();
    await vision.close();
  });

  const onSecond = (url: string, headers: Record<string, string> = {}) => getWithHost(url, headers, 'GET', Number(new URL(second.web.url).port));

  /** Uploads (judged "allow") and reads it twice on the second process: lookup and bytes are hot there. */
  async function hotOnSecond(seed: number) {
    vision.state.answer = 'allow';
    const bytes = pngBytes(6000, seed);
    const res = await upload(env, { key: alice.apiKey, bytes, json: true });
    const { url, filename } = res.body.data as { url: string; filename: string };
    await eventually(async () => (await env.container.db.select().from(files).where(eq(files.filename, filename)))[0]!.moderatedAt !== null);
    for (let i = 0; i < 2; i++) expect((await onSecond(url)).body.equals(bytes)).to.equal(true);
    return { url, filename, bytes };
  }

  /** The bytes the second process holds of a file's current object, or undefined. */
  async function heldOnSecond(filename: string) {
    const [row] = await env.container.db.select().from(files).where(eq(files.filename, filename));
    return { objectKey: row!.objectKey, held: second.container.services.hosted.bodies.get(row!.objectKey) };
  }

  it('replace: the very next read there has the new bytes and ETag, and the old bytes are let go there', async () => {
    const { url, filename } = await hotOnSecond(21);
    const old = await onSecond(url);
    const before = await heldOnSecond(filename);
    expect(before.held).to.not.equal(undefined);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(pngBytes(7000, 22))]), 'v2.png');
    expect((await env.api.patch(`/api/user/images/${filename}/replace`, { key: alice.apiKey, body: form })).status).to.equal(200);
    const next = await onSecond(url);
    expect(next.body.equals(pngBytes(7000, 22))).to.equal(true);
    expect(next.headers.etag).to.not.equal(old.headers.etag);
    expect((await onSecond(url, { 'if-none-match': String(old.headers.etag) })).status).to.equal(200);
    expect(second.container.services.hosted.bodies.get(before.objectKey)).to.equal(undefined);
  });

  it('rename, delete and privacy: the very next read there is refused; only a deleted file\'s bytes are let go', async () => {
    const renamed = await hotOnSecond(23);
    expect((await env.api.put(`/api/user/images/${renamed.filename}/rename`, { key: alice.apiKey, json: { newFilename: 'moved-away.png' } })).status).to.equal(200);
    expect((await onSecond(renamed.url)).status).to.equal(404);
    // Same object, same bytes: they stay held for the new name.
    expect((await heldOnSecond('moved-away.png')).held).to.not.equal(undefined);

    const deleted = await hotOnSecond(24);
    const { objectKey } = await heldOnSecond(deleted.filename);
    expect((await env.api.delete(`/api/user/images/${deleted.filename}`, { key: alice.apiKey })).status).to.equal(200);
    expect((await onSecond(deleted.url)).status).to.equal(404);
    expect(second.container.services.hosted.bodies.get(objectKey)).to.equal(undefined);

    const hidden = await hotOnSecond(25);
    expect((await env.api.patch(`/api/user/images/${hidden.filename}/privacy`, { key: alice.apiKey, json: { isPrivate: true } })).status).to.equal(200);
    expect((await onSecond(hidden.url)).status).to.equal(404);
  });

  it('quarantine: once the verdict is recorded the next read there is 451', async () => {
    const { url, filename } = await hotOnSecond(26);
    const [row] = await env.container.db.select().from(files).where(eq(files.filename, filename));
    vision.state.answer = 'hard_block';
    // A second check of the same content, as a re-check by an administrator would be.
    await env.container.db.update(files).set({ moderatedAt: null }).where(eq(files.id, row!.id));
    await env.container.services.moderation.check(row!.id, row!.objectKey);
    expect((await onSecond(url)).status).to.equal(451);
  });
});

describe('large files on S3 by redirect to a presigned URL (S3_REDIRECT_MIN_BYTES)', () => {
  let s3: S3rverHandle;
  let env: TestEnv;
  let alice: { id: string; username: string; apiKey: string };

  before(async () => {
    s3 = await startS3rver();
    env = await createTestEnv({
      env: {
        ...s3EnvOf(s3),
        S3_REDIRECT_MIN_BYTES: '50000',
        S3_REDIRECT_TTL_SECONDS: '60',
      },
    });
    alice = await env.createAccount();
  });
  after(async () => {
    await env.close();
    await s3.stop();
  });

  it('redirects a large file to a signed URL that serves its bytes, type and caching', async () => {
    const bytes = pngBytes(80_000, 31);
    const res = await upload(env, { key: alice.apiKey, bytes, json: true });
    const served = await getWithHost(res.body.data.url);
    expect(served.status).to.equal(302);
    expect(served.headers['cache-control']).to.equal('private, no-store');
    const location = String(served.headers.location);
    expect(location.startsWith(s3.endpoint)).to.equal(true);
    expect(location).to.match(/X-Amz-Expires=60/);
    const direct = await fetch(location);
    expect(direct.status).to.equal(200);
    expect(direct.headers.get('content-type')).to.equal('image/png');
    expect(Buffer.from(await direct.arrayBuffer()).equals(bytes)).to.equal(true);
    // Revalidation is still the service's: no redirect for a fresh copy.
    expect((await getWithHost(res.body.data.url, { 'if-none-match': String(served.headers.etag) })).status).to.equal(304);
  });

  it('serves small files itself, and never redirects what the caller may not see', async () => {
    const small = await upload(env, { key: alice.apiKey, bytes: pngBytes(2000, 32), json: true });
    const res = await getWithHost(small.body.data.url);
    expect(res.status).to.equal(200);
    expect(res.body.equals(pngBytes(2000, 32))).to.equal(true);

    const large = await upload(env, { key: alice.apiKey, bytes: pngBytes(80_000, 33), json: true });
    const privacy = await env.api.patch(`/api/user/images/${large.body.data.filename}/privacy`, { key: alice.apiKey, json: { isPrivate: true } });
    const unsigned = await getWithHost(large.body.data.url);
    expect(unsigned.status).to.equal(404);
    expect(unsigned.headers.location).to.equal(undefined);
    expect((await getWithHost(privacy.body.data.url as string)).status).to.equal(302);
  });
});

describe('FILE_OFFLOAD=x-sendfile (Apache mod_xsendfile, lighttpd)', () => {
  it('answers with the path of the object on disk and no body, and never for an unsigned private file', async () => {
    const env = await createTestEnv({ env: { FILE_OFFLOAD: 'x-sendfile' } });
    try {
      const carol = await env.createAccount();
      const bytes = pngBytes(4000, 41);
      const res = await upload(env, { key: carol.apiKey, bytes, json: true });
      for (let i = 0; i < 2; i++) {
        const served = await getWithHost(res.body.data.url);
        expect(served.status).to.equal(200);
        expect(served.body.length).to.equal(0);
        const file = String(served.headers['x-sendfile']);
        expect(file.startsWith(env.container.config.storage.localRoot)).to.equal(true);
        expect((await readFile(file)).equals(bytes)).to.equal(true);
      }
      await env.api.patch(`/api/user/images/${res.body.data.filename}/privacy`, { key: carol.apiKey, json: { isPrivate: true } });
      const unsigned = await getWithHost(res.body.data.url);
      expect(unsigned.status).to.equal(404);
      expect(unsigned.headers['x-sendfile']).to.equal(undefined);
    } finally {
      await env.close();
    }
  });
});
