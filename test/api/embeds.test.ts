import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { eq, sql } from 'drizzle-orm';
import sharp from 'sharp';
import { customDomains, files, type FileRow } from '../../shared/db/schema.js';
import { renditionKey } from '../../shared/services/media/thumbnails/thumbnail-keys.js';
import { createFolder } from '../helpers/folders.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { upload } from '../helpers/uploads.js';

type Account = { id: string; username: string; apiKey: string };

describe('embeds', () => {
  let env: TestEnv;
  let site: string;
  let base: string;
  before(async () => {
    env = await createTestEnv({ env: { RATE_LIMIT_UPLOADS_PER_MINUTE: '10000', PLAN_FREE_DAILY_LIMIT: '1000' } });
    site = env.container.config.siteUrl;
    base = env.container.config.baseUrl;
  });
  after(() => env.close());

  /** A 300×200 JPEG whose EXIF turns it upright as 200×300. */
  const portraitJpeg = (seed: number) =>
    sharp({ create: { width: 300, height: 200, channels: 3, background: { r: seed % 256, g: 90, b: 40 } } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();

  async function uploaded(account: Account, bytes: Buffer, name: string): Promise<FileRow> {
    const res = await upload(env, { key: account.apiKey, bytes, name, json: true });
    expect(res.status, res.text).to.equal(200);
    const [row] = await env.container.db.select().from(files).where(eq(files.filename, res.body.data.filename as string));
    return row!;
  }

  /** The worker's thumbnail job, run here: both renditions stored and recorded. */
  async function withThumbnails(row: FileRow) {
    expect(await env.container.services.thumbnails.make(row.id, row.objectKey)).to.equal('made');
  }

  /** A page's link-preview tags: its preview image with that image's size, the large card, the oEmbed link. */
  function expectPreviewTags(page: string, pageUrl: string, image: { url: string; width: number; height: number }) {
    expect(page).to.include('<meta property="og:type" content="website"/>');
    expect(page).to.include(`<meta property="og:image" content="${image.url}"/>`);
    expect(page).to.include(`<meta property="og:image:width" content="${image.width}"/>`);
    expect(page).to.include(`<meta property="og:image:height" content="${image.height}"/>`);
    expect(page).to.include('<meta name="twitter:card" content="summary_large_image"/>');
    expect(page).to.include(`<link rel="alternate" type="application/json+oembed" href="${base}/api/oembed?url=${encodeURIComponent(pageUrl)}"`);
  }

  const oembed = (url: string, extra = '') => env.api.get(`/api/oembed?url=${encodeURIComponent(url)}${extra}`);

  describe('GET /api/oembed', () => {
    it('answers a photo with the image’s upright size for a public image in every URL style', async () => {
      const alice = await env.createAccount({ plan: 'pro' });
      const row = await uploaded(alice, await portraitJpeg(1), 'cat.jpg');
      const domain = `img-${randomBytes(3).toString('hex')}.example.test`;
      await env.container.db.insert(customDomains).values({ accountId: alice.id, domain, status: 'active', txtRecordName: `_hfs.${domain}`, txtRecordValue: 'x' });
      const port = new URL(site).port;
      const styles = [
        `http://${alice.username}.localhost:${port}/${row.filename}`,
        `${site}/u/${alice.username}/${row.filename}`,
        `${site}/s/${row.shortCode}`,
        `https://${domain}/${row.filename}`,
      ];
      for (const url of styles) {
        const res = await oembed(url);
        expect(res.status, `${url}: ${res.text}`).to.equal(200);
        expect(res.body).to.deep.equal({ version: '1.0', type: 'photo', url, width: 200, height: 300, title: row.filename, provider_name: 'Hosted Files', provider_url: `${site}/` });
      }
      expect((await oembed(`${site}/u/${alice.username}/${row.filename}`)).headers.get('cache-control')).to.equal('no-store');
    });

    it('answers a photo for an anonymous upload at /f/{filename}, with the size of a PNG, a WebP and a GIF read from their heads', async () => {
      const alice = await env.createAccount();
      for (const [format, name] of [['png', 'a.png'], ['webp', 'a.webp'], ['gif', 'a.gif']] as const) {
        // Noise, so that the image's header is far from its end.
        const bytes = await sharp(randomBytes(640 * 480 * 3), { raw: { width: 640, height: 480, channels: 3 } })[format]().toBuffer();
        const row = await uploaded(alice, bytes, name);
        await env.container.db.update(files).set({ accountId: null, urlFormat: 'anonymous' }).where(eq(files.id, row.id));
        const url = `${site}/f/${row.filename}`;
        const res = await oembed(url);
        expect(res.status, res.text).to.equal(200);
        expect(res.body).to.include({ type: 'photo', url, width: 640, height: 480 });
      }
    });

    it('answers a link with the preview rendition and its size for an album', async () => {
      const alice = await env.createAccount();
      const folderId = await createFolder(env, alice, `Trip & "friends"`);
      const row = await uploaded(alice, await sharp({ create: { width: 2000, height: 1000, channels: 3, background: '#3a6' } }).png().toBuffer(), 'wide.png');
      await env.api.patch(`/api/user/images/${row.filename}/move`, { key: alice.apiKey, json: { folderId } });
      await withThumbnails(row);
      const share = (await env.api.post(`/api/user/folders/${folderId}/share`, { key: alice.apiKey })).body.data as { url: string };
      const res = await oembed(share.url);
      expect(res.status, res.text).to.equal(200);
      const { previewUrl } = env.container.services.thumbnails.urlsOf((await env.container.db.select().from(files).where(eq(files.id, row.id)))[0]!);
      expect(res.body).to.deep.equal({
        version: '1.0',
        type: 'link',
        title: 'Trip & "friends"',
        provider_name: 'Hosted Files',
        provider_url: `${site}/`,
        thumbnail_url: previewUrl,
        thumbnail_width: 1280,
        thumbnail_height: 640,
      });
    });

    it('keeps within maxwidth and maxheight: the original, else the largest rendition that fits, else a link without thumbnail', async () => {
      const alice = await env.createAccount();
      const row = await uploaded(alice, await sharp({ create: { width: 2000, height: 1000, channels: 3, background: '#36a' } }).png().toBuffer(), 'big.png');
      await withThumbnails(row);
      const url = `${site}/u/${alice.username}/${row.filename}`;
      const { previewUrl, thumbnailUrl } = env.container.services.thumbnails.urlsOf((await env.container.db.select().from(files).where(eq(files.id, row.id)))[0]!);
      const answers = [
        ['&maxwidth=2000&maxheight=1000', { type: 'photo', url, width: 2000, height: 1000 }],
        ['&maxwidth=1500', { type: 'photo', url: previewUrl, width: 1280, height: 640 }],
        ['&maxheight=700', { type: 'photo', url: previewUrl, width: 1280, height: 640 }],
        ['&maxwidth=500&maxheight=500', { type: 'photo', url: thumbnailUrl, width: 256, height: 128 }],
      ] as const;
      for (const [query, expected] of answers) {
        const res = await oembed(url, query);
        expect(res.status, `${query}: ${res.text}`).to.equal(200);
        expect(res.body, query).to.include(expected);
      }
      const tiny = await oembed(url, '&maxwidth=100');
      expect(tiny.body).to.deep.equal({ version: '1.0', type: 'link', title: row.filename, provider_name: 'Hosted Files', provider_url: `${site}/` });
      expect((await oembed(url, '&maxwidth=0')).status).to.equal(400);
    });

    it('answers 404 with the error body for private, expired, quarantined and unknown targets', async () => {
      const alice = await env.createAccount();
      const [privateFile, expired, quarantined] = [await uploaded(alice, await portraitJpeg(2), 'p.jpg'), await uploaded(alice, await portraitJpeg(3), 'e.jpg'), await uploaded(alice, await portraitJpeg(4), 'q.jpg')];
      expect((await env.api.patch(`/api/user/images/${privateFile.filename}/privacy`, { key: alice.apiKey, json: { isPrivate: true } })).status).to.equal(200);
      await env.container.db.update(files).set({ expiresAt: new Date(Date.now() - 60_000) }).where(eq(files.id, expired.id));
      await env.container.db.update(files).set({ quarantined: true }).where(eq(files.id, quarantined.id));
      const signed = (await env.api.get('/api/user/dashboard?limit=100', { key: alice.apiKey })).body.data.uploads.find((u: { filename: string }) => u.filename === privateFile.filename).url as string;
      const urls = [
        signed,
        `${site}/u/${alice.username}/${privateFile.filename}`,
        `${site}/u/${alice.username}/${expired.filename}`,
        `${site}/s/${quarantined.shortCode}`,
        `${site}/u/${alice.username}/nothing.png`,
        `${site}/album/${randomBytes(16).toString('base64url')}`,
        `${site}/dashboard`,
        'https://elsewhere.example.org/cat.png',
      ];
      // The same account's public image answers: the 404s below are the targets', not the route's.
      const visible = await uploaded(alice, await portraitJpeg(6), 'v.jpg');
      expect((await oembed(`${site}/u/${alice.username}/${visible.filename}`)).status).to.equal(200);
      for (const url of urls) {
        const res = await oembed(url);
        expect(res.status, url).to.equal(404);
        expect(res.body.success, url).to.equal(false);
        expect(res.body.error, url).to.be.a('string');
      }
    });

    it('answers 501 for format=xml and 400 for a missing or invalid url', async () => {
      const alice = await env.createAccount();
      const row = await uploaded(alice, await portraitJpeg(5), 'x.jpg');
      const xml = await oembed(`${site}/s/${row.shortCode}`, '&format=xml');
      expect(xml.status).to.equal(501);
      expect(xml.body).to.deep.equal({ success: false, error: 'Only format=json is offered' });
      for (const path of ['/api/oembed', '/api/oembed?url=not-a-url', `/api/oembed?url=${encodeURIComponent('ftp://x.example/a.png')}`]) {
        const res = await env.api.get(path);
        expect(res.status, path).to.equal(400);
        expect(res.body.success).to.equal(false);
      }
    });
  });

  describe('share links', () => {
    async function shareLink(account: Account, json: Record<string, unknown>) {
      const res = await env.api.post('/api/user/share-links', { key: account.apiKey, json });
      expect(res.status, res.text).to.equal(200);
      return res.body.data as { id: string; url: string };
    }

    /** A folder holding a public image with its renditions made (the cover) and a private file. */
    async function folderWithCover(account: Account) {
      const folderId = await createFolder(env, account, `Shared ${randomBytes(3).toString('hex')}`);
      // The private one first: the cover is the folder's newest image.
      const hidden = await uploaded(account, await portraitJpeg(7), 'hidden.jpg');
      const cover = await uploaded(account, await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#28c' } }).png().toBuffer(), 'cover.png');
      for (const file of [hidden, cover]) await env.api.patch(`/api/user/images/${file.filename}/move`, { key: account.apiKey, json: { folderId } });
      expect((await env.api.patch(`/api/user/images/${hidden.filename}/privacy`, { key: account.apiKey, json: { isPrivate: true } })).status).to.equal(200);
      await withThumbnails(cover);
      const [row] = await env.container.db.select().from(files).where(eq(files.id, cover.id));
      return { folderId, cover: row!, previewUrl: env.container.services.thumbnails.urlsOf(row!).previewUrl! };
    }

    it('answers a link with the cover preview for a folder link and a file link without a password, counting no view', async () => {
      const alice = await env.createAccount();
      const { folderId, cover, previewUrl } = await folderWithCover(alice);
      const folderLink = await shareLink(alice, { folderId, maxViews: 1 });
      const fileLink = await shareLink(alice, { filename: cover.filename });
      const folderName = (await env.api.get('/api/user/folders', { key: alice.apiKey })).body.data.find((f: { id: string }) => f.id === folderId).name as string;
      const thumbnail = { thumbnail_url: previewUrl, thumbnail_width: 1280, thumbnail_height: 960 };
      for (let i = 0; i < 2; i += 1) {
        const res = await oembed(folderLink.url);
        expect(res.status, res.text).to.equal(200);
        expect(res.body).to.deep.equal({ version: '1.0', type: 'link', title: folderName, provider_name: 'Hosted Files', provider_url: `${site}/`, ...thumbnail });
      }
      expect((await oembed(fileLink.url)).body).to.include({ type: 'link', title: cover.filename, ...thumbnail });
      // Its one view is still there.
      expect((await fetch(folderLink.url, { headers: { accept: 'text/html' } })).status).to.equal(200);
    });

    it('answers 404 for a link with a password, out of views, expired or revoked', async () => {
      const alice = await env.createAccount();
      const { folderId, cover } = await folderWithCover(alice);
      const open = await shareLink(alice, { filename: cover.filename });
      expect((await oembed(open.url)).status).to.equal(200);
      const withPassword = await shareLink(alice, { folderId, password: 'correct horse' });
      const spent = await shareLink(alice, { filename: cover.filename, maxViews: 1 });
      expect((await fetch(spent.url)).status).to.equal(200);
      const expired = await shareLink(alice, { folderId, expiresIn: 60 });
      await env.container.db.execute(sql`update share_links set expires_at = now() - interval '1 minute' where id = ${expired.id}`);
      const revoked = await shareLink(alice, { folderId });
      expect((await env.api.delete(`/api/user/share-links/${revoked.id}`, { key: alice.apiKey })).status).to.equal(200);
      for (const link of [withPassword, spent, expired, revoked, { url: `${site}/l/${randomBytes(32).toString('base64url')}` }]) {
        const res = await oembed(link.url);
        expect(res.status, link.url).to.equal(404);
        expect(res.body.success).to.equal(false);
      }
    });

    it('puts OpenGraph, Twitter and oEmbed tags on a folder link page without a password, and none on one with a password', async () => {
      const alice = await env.createAccount();
      const { folderId, previewUrl } = await folderWithCover(alice);
      const open = await shareLink(alice, { folderId });
      const page = await (await fetch(open.url, { headers: { accept: 'text/html' } })).text();
      expect(page).to.match(/<meta property="og:title" content="Shared [0-9a-f]{6}"\/>/);
      expectPreviewTags(page, open.url, { url: previewUrl, width: 1280, height: 960 });

      const locked = await shareLink(alice, { folderId, password: 'correct horse' });
      const asked: Record<string, string>[] = [{ accept: 'text/html' }, { accept: 'text/html', 'x-share-password': 'correct horse' }];
      for (const headers of asked) {
        const res = await fetch(locked.url, { headers });
        const text = await res.text();
        expect(text).not.to.include('og:');
        expect(text).not.to.include('json+oembed');
      }
    });
  });

  describe('while storage fails', () => {
    /** Makes an object unreadable as a failing disk does: its path is a directory (EISDIR on read). */
    async function breakObject(key: string) {
      const file = env.container.storage.localPath!(key);
      await rm(file);
      await mkdir(file);
    }

    it('answers 502 for an image whose size cannot be read, and renders an album page without its image', async () => {
      const alice = await env.createAccount();
      const photo = await uploaded(alice, await portraitJpeg(8), 'broken.jpg');
      await breakObject(photo.objectKey);
      const res = await oembed(`${site}/s/${photo.shortCode}`);
      expect(res.status).to.equal(502);
      expect(res.body.success).to.equal(false);

      const folderId = await createFolder(env, alice, 'Broken');
      const row = await uploaded(alice, await sharp({ create: { width: 500, height: 500, channels: 3, background: '#777' } }).png().toBuffer(), 'square.png');
      await env.api.patch(`/api/user/images/${row.filename}/move`, { key: alice.apiKey, json: { folderId } });
      await withThumbnails(row);
      await breakObject(renditionKey(row.objectKey, 'preview'));
      const share = (await env.api.post(`/api/user/folders/${folderId}/share`, { key: alice.apiKey })).body.data as { url: string };
      const page = await env.api.get(new URL(share.url).pathname);
      expect(page.status).to.equal(200);
      expect(page.text).not.to.include('og:image');
      expect(page.text).to.include('<meta name="twitter:card" content="summary"/>');
    });
  });

  describe('GET /album/:shareId', () => {
    it('carries OpenGraph and Twitter tags with the preview rendition and its size, and the oEmbed link', async () => {
      const alice = await env.createAccount();
      const folderId = await createFolder(env, alice, `<b>Tom & Jerry's</b>`);
      const row = await uploaded(alice, await sharp({ create: { width: 900, height: 1800, channels: 3, background: '#a36' } }).png().toBuffer(), 'tall.png');
      await env.api.patch(`/api/user/images/${row.filename}/move`, { key: alice.apiKey, json: { folderId } });
      await withThumbnails(row);
      const share = (await env.api.post(`/api/user/folders/${folderId}/share`, { key: alice.apiKey })).body.data as { url: string };
      const page = (await env.api.get(new URL(share.url).pathname)).text;
      const { previewUrl } = env.container.services.thumbnails.urlsOf((await env.container.db.select().from(files).where(eq(files.id, row.id)))[0]!);
      expect(previewUrl).to.match(/^http:\/\/.+\/preview\.webp$/);
      // Escaped as an attribute value needs (& < "), so the name can neither end the attribute nor open a tag.
      expect(page).to.include('<meta property="og:title" content="&lt;b>Tom &amp; Jerry\'s&lt;/b>"/>');
      expectPreviewTags(page, share.url, { url: previewUrl!, width: 640, height: 1280 });
    });
  });
});
