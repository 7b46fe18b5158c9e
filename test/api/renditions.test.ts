import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { files } from '../../shared/db/schema.js';
import { RenditionService } from '../../shared/services/media/renditions/rendition.service.js';
import { eventually } from '../helpers/eventually.js';
import { pngBomb } from '../helpers/media.js';
import { s3EnvOf, startS3rver, type S3rverHandle } from '../helpers/s3rver.js';
import { reprDigestOf, sha256Of } from '../helpers/streams.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { getWithHost, storedObjects, upload } from '../helpers/uploads.js';

/** A photo-like PNG (noise) of this size. */
function photo(width: number, height: number, seed = 1): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: seed * 40, g: 90, b: 160 }, noise: { type: 'gaussian', mean: 120, sigma: 40 } } })
    .png()
    .toBuffer();
}

/** An animated GIF of `frames` frames, made by ffmpeg. */
function animatedGif(frames: number): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), 'hfs-gif-'));
  const out = path.join(dir, 'anim.gif');
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `testsrc=size=160x120:rate=10`, '-frames:v', String(frames), out]);
  return readFileSync(out);
}

describe('image renditions (?w, format, q)', () => {
  let env: TestEnv;
  let alice: { id: string; username: string; apiKey: string };

  before(async () => {
    env = await createTestEnv({ workers: true });
    alice = await env.createAccount();
  });
  after(() => env.close());

  async function uploaded(bytes: Buffer, name = 'photo.png') {
    const res = await upload(env, { key: alice.apiKey, bytes, name, json: true });
    expect(res.status).to.equal(200);
    return res.body.data as { url: string; filename: string };
  }
  const withQuery = (url: string, query: string) => `${url}${url.includes('?') ? '&' : '?'}${query}`;

  it('serves a resized WebP from the allow-list, and the URL without parameters unchanged', async () => {
    const original = await photo(1200, 800);
    const { url } = await uploaded(original);
    const plain = await getWithHost(url);
    expect(plain.status).to.equal(200);
    expect(plain.body.equals(original)).to.equal(true);

    const res = await getWithHost(withQuery(url, 'w=640&format=webp'));
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('image/webp');
    expect(res.headers['repr-digest']).to.equal(reprDigestOf(res.body));
    const meta = await sharp(res.body).metadata();
    expect([meta.format, meta.width, meta.height]).to.deep.equal(['webp', 640, 427]);
    expect(res.headers.etag).to.not.equal(plain.headers.etag);
    expect(res.headers['cache-control']).to.equal(plain.headers['cache-control']);
    expect(res.headers.vary).to.equal(undefined);
    expect(Number(res.headers['content-length'])).to.equal(res.body.length);
    // Stored beside the object, and served from there (memory, 304, ranges) from now on.
    const objects = await storedObjects(env);
    expect(objects.filter((key) => key.endsWith('_w640-qd-webp'))).to.have.length(1);
    const again = await getWithHost(withQuery(url, 'w=640&format=webp'));
    expect(again.body.equals(res.body)).to.equal(true);
    expect(again.headers.etag).to.equal(res.headers.etag);
    expect(again.headers['repr-digest']).to.equal(res.headers['repr-digest']);
    const revalidated = await getWithHost(withQuery(url, 'w=640&format=webp'), { 'if-none-match': String(res.headers.etag) });
    expect(revalidated.status).to.equal(304);
    const part = await getWithHost(withQuery(url, 'w=640&format=webp'), { range: 'bytes=0-9' });
    expect(part.status).to.equal(206);
    expect(part.body.equals(res.body.subarray(0, 10))).to.equal(true);
  });

  it('gives a rendition another process made the digest of its stored bytes', async () => {
    const { url, filename } = await uploaded(await photo(600, 400, 3), 'elsewhere.png');
    const made = await getWithHost(withQuery(url, 'w=320&format=avif'));
    expect(made.status).to.equal(200);
    // A process that did not make it (its own service, the same storage) finds it stored.
    const { storage, config, db } = env.container;
    const [row] = await db.select().from(files).where(eq(files.filename, filename));
    const served = await new RenditionService({ storage, ...config.serving.renditions }).serve(row!, { w: 320, format: 'avif' }, undefined);
    expect(served.file.sha256).to.equal(sha256Of(made.body));
    expect(served.file.size).to.equal(made.body.length);
  });

  it('answers 400 naming the allowed values for anything outside the allow-lists', async () => {
    const { url } = await uploaded(await photo(300, 200), 'small.png');
    for (const [query, named] of [
      ['w=100', /64, 128, 256, 320, 480, 640, 800, 1024, 1280, 1600, 1920, 2560/],
      ['w=640px', /w must be one of/],
      ['format=gif', /webp, avif, jpeg, png, auto/],
      ['q=55', /50, 60, 70, 80, 90/],
      ['q=100', /q must be one of/],
      ['w=640&w=800', /w may be given once/],
      ['width=640', /Unknown parameter width/],
    ] as const) {
      const res = await getWithHost(withQuery(url, query));
      expect(res.status, query).to.equal(400);
      const body = JSON.parse(res.body.toString()) as { success: boolean; error: string };
      expect(body.success).to.equal(false);
      expect(body.error, query).to.match(named);
    }
    expect(await storedObjects(env)).to.not.satisfy((keys: string[]) => keys.some((key) => key.includes('w100')));
  });

  it('never upscales: a width above the original gives the original width', async () => {
    const { url } = await uploaded(await photo(300, 200), 'narrow.png');
    const res = await getWithHost(withQuery(url, 'w=1024&format=jpeg&q=60'));
    expect(res.status).to.equal(200);
    const meta = await sharp(res.body).metadata();
    expect([meta.format, meta.width, meta.height]).to.deep.equal(['jpeg', 300, 200]);
  });

  it('picks the format from Accept with format=auto and says Vary: Accept', async () => {
    const { url } = await uploaded(await photo(500, 400), 'auto.png');
    const target = withQuery(url, 'w=256&format=auto');
    const avif = await getWithHost(target, { accept: 'image/avif,image/webp,*/*' });
    const webp = await getWithHost(target, { accept: 'image/webp,*/*' });
    const other = await getWithHost(target, { accept: '*/*' });
    expect([avif.headers['content-type'], webp.headers['content-type'], other.headers['content-type']]).to.deep.equal(['image/avif', 'image/webp', 'image/png']);
    for (const res of [avif, webp, other]) {
      expect(res.status).to.equal(200);
      expect(res.headers.vary).to.equal('Accept');
      expect((await sharp(res.body).metadata()).width).to.equal(256);
    }
    // The answer from memory says the same.
    const hot = await getWithHost(target, { accept: 'image/webp,*/*' });
    expect([hot.headers.vary, hot.headers['content-type'], hot.headers.etag]).to.deep.equal(['Accept', 'image/webp', webp.headers.etag]);
    const revalidated = await getWithHost(target, { accept: 'image/webp,*/*', 'if-none-match': String(webp.headers.etag) });
    expect([revalidated.status, revalidated.headers.vary]).to.deep.equal([304, 'Accept']);
  });

  it('keeps the frames of an animation, and refuses a format that cannot hold them', async () => {
    const { url } = await uploaded(animatedGif(6), 'anim.gif');
    const webp = await getWithHost(withQuery(url, 'w=64&format=webp'));
    expect(webp.status).to.equal(200);
    const meta = await sharp(webp.body, { animated: true }).metadata();
    expect([meta.format, meta.width, meta.pages]).to.deep.equal(['webp', 64, 6]);
    const gif = await getWithHost(withQuery(url, 'w=64'));
    expect(gif.headers['content-type']).to.equal('image/gif');
    expect((await sharp(gif.body, { animated: true }).metadata()).pages).to.equal(6);
    const jpeg = await getWithHost(withQuery(url, 'w=64&format=jpeg'));
    expect(jpeg.status).to.equal(422);
    expect(JSON.parse(jpeg.body.toString()).error).to.match(/animated/i);
  });

  it('refuses a decompression bomb from its header, fast and with flat memory', async () => {
    const { url } = await uploaded(pngBomb(30_000, 30_000), 'bomb.png');
    const before = process.memoryUsage().rss;
    const started = performance.now();
    const res = await getWithHost(withQuery(url, 'w=64&format=webp'));
    expect(res.status).to.equal(422);
    expect(JSON.parse(res.body.toString()).error).to.match(/pixels/);
    // 900 million pixels would be 2.7 GB decoded; the refusal reads the header only.
    expect(process.memoryUsage().rss - before).to.be.below(64 * 1024 * 1024);
    expect(performance.now() - started).to.be.below(2_000);
    expect((await storedObjects(env)).filter((key) => key.includes('_w64'))).to.satisfy((keys: string[]) => keys.every((key) => !key.startsWith(url)));
  });

  it('answers 422 for files that are not images', async () => {
    const { url } = await uploaded(Buffer.from('just some text\n'), 'notes.txt');
    const res = await getWithHost(withQuery(url, 'w=64'));
    expect(res.status).to.equal(422);
  });

  it('makes a replaced file’s renditions of its new content', async () => {
    const { url, filename } = await uploaded(await photo(400, 300, 6), 'replaced.png');
    const first = await getWithHost(withQuery(url, 'w=128&format=webp'));
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await photo(600, 300, 7))]), 'replaced.png');
    expect((await env.api.patch(`/api/user/images/${filename}/replace`, { key: alice.apiKey, body: form })).status).to.equal(200);
    const second = await getWithHost(withQuery(url, 'w=128&format=webp'));
    expect(second.headers.etag).to.not.equal(first.headers.etag);
    expect((await sharp(second.body).metadata()).height).to.equal(64);
  });

  it('removes renditions with the file (the same job removes a replaced content’s)', async () => {
    const { url, filename } = await uploaded(await photo(400, 300, 2), 'gone.png');
    expect((await getWithHost(withQuery(url, 'w=128&format=webp'))).status).to.equal(200);
    const [row] = await env.container.db.select().from(files).where(eq(files.filename, filename));
    const renditionsOf = async () => (await storedObjects(env)).filter((key) => key.startsWith(`${row!.objectKey}_`));
    expect(await renditionsOf()).to.have.length.of.at.least(1);
    const res = await env.api.delete(`/api/user/images/${filename}`, { key: alice.apiKey });
    expect(res.status).to.equal(200);
    await eventually(async () => (await renditionsOf()).length === 0);
    expect((await getWithHost(withQuery(url, 'w=128&format=webp'))).status).to.equal(404);
  });

  it('keeps the original’s rules: private files need a signature that covers the parameters', async () => {
    const { url, filename } = await uploaded(await photo(400, 300, 3), 'secret.png');
    const set = await env.api.patch(`/api/user/images/${filename}/privacy`, { key: alice.apiKey, json: { isPrivate: true } });
    expect(set.status).to.equal(200);
    expect((await getWithHost(withQuery(url, 'w=128&format=webp'))).status).to.equal(404);

    const link = await env.api.get(`/api/user/images/${filename}/link?w=128&format=webp`, { key: alice.apiKey });
    expect(link.status).to.equal(200);
    const signed = String(link.body.url);
    expect(signed).to.match(/\?w=128&format=webp&expires=\d+&signature=/);
    const res = await getWithHost(signed);
    expect(res.status).to.equal(200);
    expect(res.headers['cache-control']).to.equal('private, no-store');
    expect((await sharp(res.body).metadata()).width).to.equal(128);
    // Another width under the same signature, or parameters added to the file's own signed link: not served.
    expect((await getWithHost(signed.replace('w=128', 'w=256'))).status).to.equal(404);
    const own = String(set.body.data.url);
    expect((await getWithHost(own)).status).to.equal(200);
    expect((await getWithHost(`${own}&w=128`)).status).to.equal(404);
  });

  it('serves nothing of a quarantined file', async () => {
    const { url, filename } = await uploaded(await photo(300, 300, 4), 'blocked.png');
    const [row] = await env.container.db.update(files).set({ quarantined: true }).where(eq(files.filename, filename)).returning();
    await env.container.services.cachePurges.fileChanged(row!, alice);
    expect((await getWithHost(url)).status).to.equal(451);
    expect((await getWithHost(withQuery(url, 'w=64&format=webp'))).status).to.equal(451);
  });

  it('hands out a sized link of a public file', async () => {
    const { url, filename } = await uploaded(await photo(300, 300, 5), 'linked.png');
    const link = await env.api.get(`/api/user/images/${filename}/link?w=640&format=auto`, { key: alice.apiKey });
    expect(link.body).to.deep.equal({ success: true, url: `${url}?w=640&format=auto` });
    expect((await env.api.get(`/api/user/images/${filename}/link?w=641`, { key: alice.apiKey })).status).to.equal(400);
    expect((await env.api.get(`/api/user/images/nothing.png/link?w=640`, { key: alice.apiKey })).status).to.equal(404);
  });
});

describe('image renditions on S3', () => {
  let s3: S3rverHandle;
  let env: TestEnv;
  let alice: { apiKey: string };

  before(async () => {
    s3 = await startS3rver();
    env = await createTestEnv({ workers: true, env: s3EnvOf(s3) });
    alice = await env.createAccount();
  });
  after(async () => {
    await env.close();
    await s3.stop();
  });

  it('makes, stores and removes a rendition in the bucket', async () => {
    const res = await upload(env, { key: alice.apiKey, bytes: await photo(500, 250, 8), name: 'bucket.png', json: true });
    const { url, filename } = res.body.data as { url: string; filename: string };
    const rendition = await getWithHost(`${url}?w=128&format=webp`);
    expect(rendition.status).to.equal(200);
    expect(rendition.headers['repr-digest']).to.equal(reprDigestOf(rendition.body));
    expect(await sharp(rendition.body).metadata()).to.include({ format: 'webp', width: 128, height: 64 });
    const [row] = await env.container.db.select().from(files).where(eq(files.filename, filename));
    const stored = async () => {
      const keys: string[] = [];
      for await (const { key } of env.container.storage.list(`${row!.objectKey}_`)) keys.push(key);
      return keys;
    };
    expect(await stored()).to.include(`${row!.objectKey}_w128-qd-webp`);
    expect((await env.api.delete(`/api/user/images/${filename}`, { key: alice.apiKey })).status).to.equal(200);
    await eventually(async () => (await stored()).length === 0);
  });
});
