import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { crc32, deflateSync } from 'node:zlib';
import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { files, type FileRow } from '../../shared/db/schema.js';
import { jobIds } from '../../shared/jobs.js';
import { SESSION_COOKIE } from '../../shared/services/accounts/session.service.js';
import { renditionKey } from '../../shared/services/media/thumbnails/thumbnail-keys.js';
import { newObjectKey, type StorageDriver } from '../../shared/storage/index.js';
import { eventually } from '../helpers/eventually.js';
import { s3EnvOf, startS3rver, type S3rverHandle } from '../helpers/s3rver.js';
import { makeTestMedia, type TestMedia } from '../helpers/test-media.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { getWithHost, upload } from '../helpers/uploads.js';

type Account = { id: string; username: string; apiKey: string };
type UploadRecord = { filename: string; url: string; mimeType: string; thumbnailUrl: string | null; previewUrl: string | null; moderationState: string };

const ONE_YEAR = 'public, max-age=31536000, immutable';

/** A real decompression bomb: a 20000×20000 one-bit PNG of zeros, about 50 KB, that would decode to 400 MP. */
function bombPng(side = 20_000): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body) >>> 0, body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // greyscale
  // Every row: filter byte 0 and side/8 bytes of zeros.
  const rows = Buffer.alloc((1 + side / 8) * side);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A GIF whose first frame is red and whose second is blue. */
function redThenBlueGif(media: TestMedia): Buffer {
  const file = media.file('red-then-blue.gif');
  const color = (c: string) => ['-f', 'lavfi', '-i', `color=c=${c}:s=64x48:d=1:r=5`];
  execFileSync('ffmpeg', ['-v', 'error', '-y', ...color('red'), ...color('blue'), '-filter_complex', '[0:v][1:v]concat=n=2:v=1[v]', '-map', '[v]', file]);
  return readFileSync(file);
}

interface StoreCase {
  name: string;
  start(): Promise<{ env: { [name: string]: string }; stop(): Promise<void> }>;
}

const stores: StoreCase[] = [
  { name: 'local', start: async () => ({ env: {}, stop: async () => undefined }) },
  {
    name: 's3 (s3rver)',
    async start() {
      const s3: S3rverHandle = await startS3rver();
      return { env: s3EnvOf(s3), stop: () => s3.stop() };
    },
  },
];

for (const store of stores) {
  describe(`thumbnails: ${store.name} storage`, function () {
    this.timeout(60_000);
    let started: Awaited<ReturnType<StoreCase['start']>>;
    let env: TestEnv;
    let storage: StorageDriver;
    let media: TestMedia;

    before(async () => {
      started = await store.start();
      env = await createTestEnv({ workers: true, env: started.env });
      storage = env.container.storage;
      media = makeTestMedia();
    });
    after(async () => {
      await env.close();
      await started.stop();
      await rm(media.dir, { recursive: true, force: true });
    });

    const rowOf = async (filename: string, accountId: string): Promise<FileRow> => {
      const rows = await env.container.db.select().from(files).where(eq(files.filename, filename));
      return rows.find((row) => row.accountId === accountId)!;
    };

    /** The thumbnail job of the file's current content, once finished. */
    async function thumbnailJob(row: FileRow) {
      const queue = env.container.jobs.queue('thumbnails');
      const id = jobIds.fileThumbnail(row.id, row.objectKey);
      await eventually(async () => (await queue.getJob(id))?.finishedOn !== undefined, 30_000);
      return (await queue.getJob(id))!;
    }

    /** Uploads through the API and waits for the worker to finish with its thumbnails. */
    async function uploaded(account: Account, bytes: Buffer, name: string) {
      const res = await upload(env, { key: account.apiKey, bytes, name, json: true });
      expect(res.status, res.text).to.equal(200);
      const before = await rowOf(res.body.data.filename, account.id);
      const job = await thumbnailJob(before);
      return { url: res.body.data.url as string, row: await rowOf(before.filename, account.id), job };
    }

    async function recordOf(account: Account, filename: string): Promise<UploadRecord> {
      const res = await env.api.get('/api/user/dashboard?limit=100', { key: account.apiKey });
      expect(res.status).to.equal(200);
      return (res.body.data.uploads as UploadRecord[]).find((upload) => upload.filename === filename)!;
    }

    async function stored(key: string) {
      const object = await storage.get(key);
      if (!object) return null;
      const chunks: Buffer[] = [];
      for await (const chunk of object.body) chunks.push(chunk as Buffer);
      return sharp(Buffer.concat(chunks)).metadata();
    }

    it('makes a 256 px WebP and a preview of a PNG beside its object, and lists both on the dashboard', async () => {
      const alice = await env.createAccount();
      const { row, job } = await uploaded(alice, media.read('still.png'), 'still.png');

      expect(job.returnvalue).to.deep.equal({ outcome: 'made' });
      expect(row.thumbnailAt).to.be.an.instanceOf(Date);
      expect([row.thumbnailWidth, row.thumbnailHeight]).to.deep.equal([256, 192]);
      const small = await stored(renditionKey(row.objectKey, 'small'));
      expect(small).to.include({ format: 'webp', width: 256, height: 192 });
      // Never enlarged: the 640×480 original is smaller than the preview's 1280 px.
      expect(await stored(renditionKey(row.objectKey, 'preview'))).to.include({ format: 'webp', width: 640, height: 480 });

      const record = await recordOf(alice, row.filename);
      // The content's object id and the file's privacy version (no privacy change yet).
      const version = `${row.objectKey.slice('objects/'.length)}-0`;
      expect(record.thumbnailUrl).to.equal(`${env.container.config.siteUrl}/thumbnails/${row.shortCode}/${version}/small.webp`);
      expect(record.previewUrl).to.equal(`${env.container.config.siteUrl}/thumbnails/${row.shortCode}/${version}/preview.webp`);
    });

    it('serves thumbnails with a year of public caching at URLs whose content never changes', async () => {
      const alice = await env.createAccount();
      const { row } = await uploaded(alice, media.read('still.jpg'), 'still.jpg');
      const { thumbnailUrl, previewUrl } = await recordOf(alice, row.filename);

      const res = await getWithHost(thumbnailUrl!);
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('image/webp');
      expect(res.headers['cache-control']).to.equal(ONE_YEAR);
      expect(res.headers['x-content-type-options']).to.equal('nosniff');
      expect(await sharp(res.body).metadata()).to.include({ format: 'webp', width: 256, height: 192 });
      const again = await getWithHost(thumbnailUrl!, { 'if-none-match': res.headers.etag as string });
      expect(again.status).to.equal(304);

      const preview = await getWithHost(previewUrl!);
      expect(preview.status).to.equal(200);
      expect(await sharp(preview.body).metadata()).to.include({ width: 640, height: 480 });

      // Another version, another rendition name, another file's code: all the same 404.
      for (const wrong of [
        thumbnailUrl!.replace(/\/[^/]+\/small\.webp$/, `/${newObjectKey().slice('objects/'.length)}/small.webp`),
        thumbnailUrl!.replace('small.webp', 'large.webp'),
        thumbnailUrl!.replace(`/${row.shortCode}/`, '/AAAAAAA/'),
      ]) {
        expect((await getWithHost(wrong)).status, wrong).to.equal(404);
      }
    });

    it('reads what sharp cannot (BMP) through ffmpeg', async () => {
      const alice = await env.createAccount();
      const { row, job } = await uploaded(alice, media.read('still.bmp'), 'still.bmp');
      expect(job.returnvalue).to.deep.equal({ outcome: 'made' });
      expect(await stored(renditionKey(row.objectKey, 'small'))).to.include({ format: 'webp', width: 256, height: 192 });
    });

    it('applies EXIF orientation: a landscape JPEG tagged to turn a quarter gets portrait thumbnails', async () => {
      const alice = await env.createAccount();
      const jpeg = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#c33' } })
        .jpeg()
        .withMetadata({ orientation: 6 })
        .toBuffer();
      expect(await sharp(jpeg).metadata()).to.include({ width: 640, height: 480, orientation: 6 });
      const { row, job } = await uploaded(alice, jpeg, 'phone.jpg');

      expect(job.returnvalue).to.deep.equal({ outcome: 'made' });
      expect([row.thumbnailWidth, row.thumbnailHeight]).to.deep.equal([192, 256]);
      expect(await stored(renditionKey(row.objectKey, 'small'))).to.include({ width: 192, height: 256 });
      const preview = await stored(renditionKey(row.objectKey, 'preview'));
      expect(preview).to.include({ width: 480, height: 640 });
      // The turn is applied to the pixels, so no orientation tag is left for a viewer to apply twice.
      expect(preview!.orientation).to.equal(undefined);
    });

    it("shows a GIF's first frame, as a still", async () => {
      const alice = await env.createAccount();
      const { row, job } = await uploaded(alice, redThenBlueGif(media), 'red-then-blue.gif');

      expect(job.returnvalue).to.deep.equal({ outcome: 'made' });
      const object = await storage.get(renditionKey(row.objectKey, 'small'));
      const chunks: Buffer[] = [];
      for await (const chunk of object!.body) chunks.push(chunk as Buffer);
      const thumbnail = sharp(Buffer.concat(chunks));
      const metadata = await thumbnail.metadata();
      expect(metadata).to.include({ format: 'webp', width: 64, height: 48 });
      expect(metadata.pages ?? 1, 'frames').to.equal(1);
      const [red, , blue] = (await thumbnail.stats()).channels;
      expect(red!.mean).to.be.above(200);
      expect(blue!.mean).to.be.below(60);
    });

    it('takes a frame of an MP4 with ffmpeg', async () => {
      const alice = await env.createAccount();
      const { row, job } = await uploaded(alice, media.read('clip.mp4'), 'clip.mp4');

      expect(row.mimeType).to.equal('video/mp4');
      expect(job.returnvalue).to.deep.equal({ outcome: 'made' });
      expect(await stored(renditionKey(row.objectKey, 'small'))).to.include({ format: 'webp', width: 256, height: 192 });
      expect(await stored(renditionKey(row.objectKey, 'preview'))).to.include({ format: 'webp', width: 320, height: 240 });
      const { thumbnailUrl } = await recordOf(alice, row.filename);
      expect((await getWithHost(thumbnailUrl!)).status).to.equal(200);
    });

    it('refuses a 20000×20000 decompression bomb: no thumbnail, no retry, and the file is kept and served', async () => {
      const alice = await env.createAccount();
      const bomb = bombPng();
      expect(bomb.length).to.be.below(200_000);
      const { url, row, job } = await uploaded(alice, bomb, 'bomb.png');

      expect(job.returnvalue).to.deep.equal({ outcome: 'none' });
      expect(job.failedReason).to.equal(undefined);
      expect(job.attemptsMade).to.equal(1);
      expect(row.thumbnailAt).to.equal(null);
      expect(await storage.head(renditionKey(row.objectKey, 'small'))).to.equal(null);
      expect(await storage.head(renditionKey(row.objectKey, 'preview'))).to.equal(null);
      expect(await recordOf(alice, row.filename)).to.include({ thumbnailUrl: null, previewUrl: null });
      const served = await getWithHost(url);
      expect(served.status).to.equal(200);
      expect(served.body.equals(bomb)).to.equal(true);
    });

    it('gives no thumbnail to content that cannot be decoded, and makes no job for other kinds', async () => {
      const alice = await env.createAccount();
      const { row, job } = await uploaded(alice, media.read('truncated.png'), 'truncated.png');
      expect(job.returnvalue).to.deep.equal({ outcome: 'none' });
      expect(row.thumbnailAt).to.equal(null);

      const res = await upload(env, { key: alice.apiKey, bytes: media.read('notes.txt'), name: 'notes.txt', json: true });
      const text = await rowOf(res.body.data.filename, alice.id);
      expect(await env.container.jobs.queue('thumbnails').getJob(jobIds.fileThumbnail(text.id, text.objectKey))).to.equal(undefined);
      expect(await recordOf(alice, text.filename)).to.include({ thumbnailUrl: null, previewUrl: null });
    });

    it('removes the thumbnails with the file, and their URLs answer 404 at once', async () => {
      const alice = await env.createAccount();
      const { row } = await uploaded(alice, media.read('still.png'), 'gone.png');
      const { thumbnailUrl } = await recordOf(alice, row.filename);
      expect((await getWithHost(thumbnailUrl!)).status).to.equal(200);

      const res = await env.api.delete(`/api/user/images/${row.filename}`, { key: alice.apiKey });
      expect(res.status).to.equal(200);

      expect((await getWithHost(thumbnailUrl!)).status).to.equal(404);
      const keys = [row.objectKey, renditionKey(row.objectKey, 'small'), renditionKey(row.objectKey, 'preview')];
      await eventually(async () => (await Promise.all(keys.map((key) => storage.head(key)))).every((found) => found === null));
    });

    it('makes new thumbnails at new URLs for replaced content, and removes the old ones with the old object', async () => {
      const alice = await env.createAccount();
      const { row: before } = await uploaded(alice, media.read('still.png'), 'changing.png');
      const old = await recordOf(alice, before.filename);

      const form = new FormData();
      form.append('file', new Blob([media.read('clip.mp4')]), 'clip.mp4');
      const res = await env.api.patch(`/api/user/images/${before.filename}/replace`, { key: alice.apiKey, body: form });
      expect(res.status, res.text).to.equal(200);
      const replaced = await rowOf(before.filename, alice.id);
      expect(replaced.objectKey).to.not.equal(before.objectKey);
      expect((await thumbnailJob(replaced)).returnvalue).to.deep.equal({ outcome: 'made' });

      const now = await recordOf(alice, before.filename);
      expect(now.thumbnailUrl).to.be.a('string').and.not.equal(old.thumbnailUrl);
      expect((await getWithHost(old.thumbnailUrl!)).status).to.equal(404);
      const fresh = await getWithHost(now.thumbnailUrl!);
      expect(fresh.status).to.equal(200);
      expect(await sharp(fresh.body).metadata()).to.include({ width: 256, height: 192 });

      // The old object waits a minute for reads in flight; its delete takes the old thumbnails along.
      const objects = env.container.jobs.queue('objects');
      const deletion = (await objects.getDelayed()).find((job) => (job.data as { key: string }).key === before.objectKey);
      expect(deletion, 'the delayed delete of the old object').to.exist;
      await deletion!.promote();
      await eventually(async () => (await storage.head(renditionKey(before.objectKey, 'small'))) === null);
      expect(await storage.head(renditionKey(before.objectKey, 'preview'))).to.equal(null);
      expect(await storage.head(before.objectKey)).to.equal(null);
      expect(await storage.head(renditionKey(replaced.objectKey, 'small'))).to.not.equal(null);
    });

    it("serves a private file's thumbnail to its signed-in owner only, never to a shared cache", async () => {
      const alice = await env.createAccount();
      const mallory = await env.createAccount();
      const { row } = await uploaded(alice, media.read('still.png'), 'secret.png');
      const res = await env.api.patch(`/api/user/images/${row.filename}/privacy`, { key: alice.apiKey, json: { isPrivate: true } });
      expect(res.status).to.equal(200);
      const { thumbnailUrl, previewUrl } = await recordOf(alice, row.filename);
      expect(thumbnailUrl).to.be.a('string');

      const cookieOf = async (account: Account) => `${SESSION_COOKIE}=${(await env.container.services.sessions.create(account.id, 'test')).token}`;
      for (const url of [thumbnailUrl!, previewUrl!]) {
        expect((await getWithHost(url)).status).to.equal(404);
        expect((await getWithHost(url, { cookie: await cookieOf(mallory) })).status).to.equal(404);
        const owner = await getWithHost(url, { cookie: await cookieOf(alice) });
        expect(owner.status).to.equal(200);
        expect(owner.headers['cache-control']).to.equal('private, no-cache');
      }
    });

    it("gives thumbnails new URLs on every privacy change: public ones 404 for everyone once private, private ones are the owner's only", async () => {
      const alice = await env.createAccount();
      const { row } = await uploaded(alice, media.read('still.png'), 'shown-then-hidden.png');
      const cookie = `${SESSION_COOKIE}=${(await env.container.services.sessions.create(alice.id, 'test')).token}`;
      const urlsNow = async () => {
        const { thumbnailUrl, previewUrl } = await recordOf(alice, row.filename);
        return [thumbnailUrl!, previewUrl!];
      };
      const setPrivate = async (isPrivate: boolean) => {
        const res = await env.api.patch(`/api/user/images/${row.filename}/privacy`, { key: alice.apiKey, json: { isPrivate } });
        expect(res.status, res.text).to.equal(200);
        // The answer carries the new URLs, as the dashboard record does.
        const urls = await urlsNow();
        expect([res.body.data.thumbnailUrl, res.body.data.previewUrl]).to.deep.equal(urls);
        return urls;
      };
      const expectPublic = async (urls: string[]) => {
        for (const url of urls) {
          const res = await getWithHost(url);
          expect(res.status, url).to.equal(200);
          expect(res.headers['cache-control']).to.equal(ONE_YEAR);
        }
      };
      const expectGone = async (urls: string[], when: string) => {
        for (const url of urls) {
          expect((await getWithHost(url)).status, `${url} ${when}`).to.equal(404);
          expect((await getWithHost(url, { cookie })).status, `${url} ${when}, to its owner`).to.equal(404);
        }
      };

      const publicUrls = await urlsNow();
      await expectPublic(publicUrls); // what a browser or CDN may keep for a year

      const privateUrls = await setPrivate(true);
      expect(privateUrls.filter((url) => publicUrls.includes(url))).to.deep.equal([]);
      await expectGone(publicUrls, 'once private');
      for (const url of privateUrls) {
        expect((await getWithHost(url)).status, `${url} anonymously while private`).to.equal(404);
        const owner = await getWithHost(url, { cookie });
        expect(owner.status).to.equal(200);
        expect(owner.headers['cache-control']).to.equal('private, no-cache');
      }

      const againPublicUrls = await setPrivate(false);
      expect(againPublicUrls.filter((url) => [...publicUrls, ...privateUrls].includes(url))).to.deep.equal([]);
      await expectPublic(againPublicUrls);
      await expectGone([...publicUrls, ...privateUrls], 'once public again');
      // Saying public again changes nothing: the URLs stay.
      expect(await setPrivate(false)).to.deep.equal(againPublicUrls);
    });

    it('serves no thumbnail of a quarantined file, and the dashboard shows it blocked without one', async () => {
      const alice = await env.createAccount();
      const { row } = await uploaded(alice, media.read('still.png'), 'blocked.png');
      const { thumbnailUrl } = await recordOf(alice, row.filename);
      expect((await getWithHost(thumbnailUrl!)).status).to.equal(200);

      const [quarantined] = await env.container.db
        .update(files)
        .set({ moderationVerdict: 'hard_block', moderatedAt: new Date(), quarantined: true })
        .where(eq(files.id, row.id))
        .returning();
      await env.container.services.cachePurges.fileChanged(quarantined!, alice);

      expect((await getWithHost(thumbnailUrl!)).status).to.equal(404);
      expect(await recordOf(alice, row.filename)).to.include({ moderationState: 'blocked', thumbnailUrl: null, previewUrl: null });
    });

    it("shows thumbnails in a shared album's grid, with their size", async () => {
      const alice = await env.createAccount();
      const folder = (await env.api.post('/api/user/folders', { key: alice.apiKey, json: { name: 'trip' } })).body.data.id as string;
      const { row } = await uploaded(alice, media.read('clip.mp4'), 'clip.mp4');
      const { row: still } = await uploaded(alice, media.read('still.png'), 'still.png');
      for (const filename of [row.filename, still.filename]) {
        const moved = await env.api.patch(`/api/user/images/${filename}/move`, { key: alice.apiKey, json: { folderId: folder } });
        expect(moved.status).to.equal(200);
      }
      const { shareId } = (await env.api.post(`/api/user/folders/${folder}/share`, { key: alice.apiKey })).body.data;

      const page = await env.api.get(`/album/${shareId}`);
      expect(page.status).to.equal(200);
      for (const file of [row, still]) {
        const { thumbnailUrl } = await recordOf(alice, file.filename);
        // The tile's caption names the file, so its picture has an empty alt (Preact writes it bare).
        expect(page.text).to.include(`<img src="${thumbnailUrl}" width="256" height="192" alt loading="lazy"/>`);
      }
      const json = await env.api.get(`/api/album/${shareId}`);
      expect(json.body.data.files.map((f: { thumbnail: unknown }) => f.thumbnail)).to.deep.include({
        url: (await recordOf(alice, still.filename)).thumbnailUrl,
        width: 256,
        height: 192,
      });
    });

    it('storage reconcile keeps the thumbnails of stored files and removes those of objects no file names', async () => {
      const alice = await env.createAccount();
      const { row } = await uploaded(alice, media.read('still.png'), 'kept.png');
      const lost = newObjectKey();
      for (const key of [renditionKey(lost, 'small'), renditionKey(lost, 'preview')]) await storage.put(key, Readable.from([Buffer.from('webp')]));

      await env.container.services.orphanSweep.reconcile({ minAgeMs: 0 });

      expect(await storage.head(renditionKey(lost, 'small'))).to.equal(null);
      expect(await storage.head(renditionKey(lost, 'preview'))).to.equal(null);
      for (const key of [row.objectKey, renditionKey(row.objectKey, 'small'), renditionKey(row.objectKey, 'preview')]) {
        expect(await storage.head(key), key).to.not.equal(null);
      }
    });
  });
}
