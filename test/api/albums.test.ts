import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readdir, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { eq } from 'drizzle-orm';
import yauzl from 'yauzl';
import { files } from '../../shared/db/schema.js';
import { eventually } from '../helpers/eventually.js';
import { createFolder } from '../helpers/folders.js';
import { pngBytes } from '../helpers/media.js';
import { repeatedStream } from '../helpers/streams.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { getWithHost, upload } from '../helpers/uploads.js';

type Account = { id: string; username: string; apiKey: string };

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const SHARE_ID = /^[A-Za-z0-9_-]{22}$/;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Every entry of a zip file on disk: name → {size, sha256}, read entry by entry. */
async function unzip(file: string): Promise<Map<string, { size: number; sha256: string }>> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true });
  const entries = new Map<string, { size: number; sha256: string }>();
  try {
    for (;;) {
      const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
        zip.once('entry', resolve).once('end', () => resolve(null)).once('error', reject);
        zip.readEntry();
      });
      zip.removeAllListeners('entry').removeAllListeners('end').removeAllListeners('error');
      if (!entry) return entries;
      const hash = createHash('sha256');
      let size = 0;
      for await (const chunk of await zip.openReadStreamPromise(entry)) {
        hash.update(chunk as Buffer);
        size += (chunk as Buffer).length;
      }
      entries.set(entry.fileName, { size, sha256: hash.digest('hex') });
    }
  } finally {
    zip.close();
  }
}

describe('shared albums', () => {
  let env: TestEnv;
  let site: string;
  before(async () => {
    env = await createTestEnv({ env: { RATE_LIMIT_UPLOADS_PER_MINUTE: '10000', PLAN_FREE_DAILY_LIMIT: '1000' } });
    site = env.container.config.siteUrl;
  });
  after(() => env.close());

  /** Uploads `bytes` for the account and moves the file into `folderId`; returns the upload JSON. */
  async function uploadInto(account: Account, folderId: string | null, bytes: Buffer, name = 'picture.png') {
    const res = await upload(env, { key: account.apiKey, bytes, name, json: true });
    expect(res.status).to.equal(200);
    const file = res.body.data as { filename: string; url: string };
    if (folderId) await moveTo(account, file.filename, folderId);
    return file;
  }

  async function moveTo(account: Account, filename: string, folderId: string | null) {
    const res = await env.api.patch(`/api/user/images/${encodeURIComponent(filename)}/move`, { key: account.apiKey, json: { folderId } });
    expect(res.status).to.equal(200);
  }

  async function share(account: Account, folderId: string) {
    const res = await env.api.post(`/api/user/folders/${folderId}/share`, { key: account.apiKey });
    expect(res.status).to.equal(200);
    return res.body.data as { shareId: string; url: string; sharedAt: string };
  }

  async function foldersOf(account: Account) {
    const res = await env.api.get('/api/user/folders', { key: account.apiKey });
    expect(res.status).to.equal(200);
    return res.body.data as { id: string; shared: boolean; shareUrl: string | null; fileCount: number }[];
  }

  /** A folder with one file of each kind that must not be listed, and three that must (newest last). */
  async function albumWithHiddenFiles(account: Account) {
    const folderId = await createFolder(env, account, `Trip ${randomBytes(3).toString('hex')}`);
    const listed = [];
    for (const seed of [1, 2, 3]) listed.push({ ...(await uploadInto(account, folderId, pngBytes(700 + seed, seed))), bytes: pngBytes(700 + seed, seed) });
    const hidden = {
      private: await uploadInto(account, folderId, pngBytes(800, 4)),
      expired: await uploadInto(account, folderId, pngBytes(801, 5)),
      quarantined: await uploadInto(account, folderId, pngBytes(802, 6)),
      elsewhere: await uploadInto(account, null, pngBytes(803, 7)),
    };
    const privacy = await env.api.patch(`/api/user/images/${hidden.private.filename}/privacy`, { key: account.apiKey, json: { isPrivate: true } });
    expect(privacy.status).to.equal(200);
    await env.container.db.update(files).set({ expiresAt: new Date(Date.now() - 60_000) }).where(eq(files.filename, hidden.expired.filename));
    await env.container.db.update(files).set({ quarantined: true }).where(eq(files.filename, hidden.quarantined.filename));
    return { folderId, listed, hidden };
  }

  describe('POST /api/user/folders/:id/share', () => {
    it('shares a folder under an unguessable album link and answers the same album when called again', async () => {
      const alice = await env.createAccount();
      const folderId = await createFolder(env, alice, 'Holidays');
      const first = await share(alice, folderId);
      expect(first.shareId).to.match(SHARE_ID);
      expect(first.url).to.equal(`${site}/album/${first.shareId}`);
      expect(new Date(first.sharedAt).toISOString()).to.equal(first.sharedAt);
      expect(await share(alice, folderId)).to.deep.equal(first);
    });

    it('gives every folder its own album', async () => {
      const alice = await env.createAccount();
      const a = await share(alice, await createFolder(env, alice, 'One'));
      const b = await share(alice, await createFolder(env, alice, 'Two'));
      expect(a.shareId).not.to.equal(b.shareId);
    });

    it('answers 404 for another account\'s folder, an unknown folder and an id that is no folder id', async () => {
      const alice = await env.createAccount();
      const bob = await env.createAccount();
      const folderId = await createFolder(env, alice, 'Mine');
      for (const [key, id] of [
        [bob.apiKey, folderId],
        [alice.apiKey, UNKNOWN_ID],
        [alice.apiKey, 'not-a-folder'],
      ] as const) {
        const res = await env.api.post(`/api/user/folders/${id}/share`, { key });
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.equal({ success: false, error: 'Folder not found' });
      }
      expect((await foldersOf(alice))[0]).to.include({ shared: false, shareUrl: null });
    });

    it('answers 401 without a key', async () => {
      expect((await env.api.post(`/api/user/folders/${UNKNOWN_ID}/share`)).status).to.equal(401);
    });
  });

  describe('DELETE /api/user/folders/:id/share', () => {
    it('ends the album at once, and sharing again gives a new link', async () => {
      const alice = await env.createAccount();
      const folderId = await createFolder(env, alice, 'Short-lived');
      await uploadInto(alice, folderId, pngBytes(500, 1));
      const { shareId } = await share(alice, folderId);
      expect((await env.api.get(`/api/album/${shareId}`)).status).to.equal(200);

      const res = await env.api.delete(`/api/user/folders/${folderId}/share`, { key: alice.apiKey });
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      for (const path of [`/api/album/${shareId}`, `/album/${shareId}`, `/album/${shareId}/download`]) {
        expect((await env.api.get(path)).status, path).to.equal(404);
      }
      expect((await foldersOf(alice))[0]).to.include({ shared: false, shareUrl: null });

      const again = await share(alice, folderId);
      expect(again.shareId).to.match(SHARE_ID).and.not.equal(shareId);
      expect((await env.api.get(`/api/album/${again.shareId}`)).status).to.equal(200);
      expect((await env.api.get(`/api/album/${shareId}`)).status).to.equal(404);
    });

    it('answers 404 for another account\'s folder and leaves its album alone', async () => {
      const alice = await env.createAccount();
      const bob = await env.createAccount();
      const folderId = await createFolder(env, alice, 'Shared');
      const { shareId } = await share(alice, folderId);
      const res = await env.api.delete(`/api/user/folders/${folderId}/share`, { key: bob.apiKey });
      expect(res.status).to.equal(404);
      expect((await env.api.get(`/api/album/${shareId}`)).status).to.equal(200);
    });
  });

  describe('folder objects', () => {
    it('carry shared, shareUrl and fileCount in GET /api/user/folders and the dashboard', async () => {
      const alice = await env.createAccount();
      const sharedId = await createFolder(env, alice, 'Shared');
      const plainId = await createFolder(env, alice, 'Plain');
      await uploadInto(alice, sharedId, pngBytes(500, 1));
      await uploadInto(alice, sharedId, pngBytes(500, 2));
      const { url } = await share(alice, sharedId);

      const expected = [
        { id: sharedId, shared: true, shareUrl: url, fileCount: 2 },
        { id: plainId, shared: false, shareUrl: null, fileCount: 0 },
      ];
      const pick = ({ id, shared, shareUrl, fileCount }: { id: string; shared: boolean; shareUrl: string | null; fileCount: number }) => ({ id, shared, shareUrl, fileCount });
      expect((await foldersOf(alice)).map(pick)).to.deep.equal(expected);
      const dashboard = await env.api.get('/api/user/dashboard', { key: alice.apiKey });
      expect(dashboard.status).to.equal(200);
      expect(dashboard.body.data.folders.map(pick)).to.deep.equal(expected);
    });
  });

  describe('GET /api/album/:shareId', () => {
    it('lists exactly the folder\'s public, live files, newest first, without a key', async () => {
      const alice = await env.createAccount();
      const { folderId, listed } = await albumWithHiddenFiles(alice);
      const { shareId } = await share(alice, folderId);
      const res = await env.api.get(`/api/album/${shareId}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      const { data } = res.body;
      expect(data).to.include({ shareId, page: 1, totalPages: 1, totalFiles: 3 });
      expect(data.name).to.match(/^Trip /);
      expect(data.files.map((f: { filename: string }) => f.filename)).to.deep.equal(listed.map((f) => f.filename).reverse());
      const newest = data.files[0];
      expect(newest).to.deep.include({ url: listed[2]!.url, mimeType: 'image/png', sizeBytes: listed[2]!.bytes.length });
      expect(new Date(newest.createdAt).toISOString()).to.equal(newest.createdAt);
      // The links serve the very bytes.
      const served = await getWithHost(newest.url);
      expect(served.status).to.equal(200);
      expect(served.body.equals(listed[2]!.bytes)).to.equal(true);
    });

    it('drops a file moved out of the folder, and is 404 once the folder is deleted', async () => {
      const alice = await env.createAccount();
      const folderId = await createFolder(env, alice, 'Moving');
      const stays = await uploadInto(alice, folderId, pngBytes(600, 1));
      const leaves = await uploadInto(alice, folderId, pngBytes(600, 2));
      const { shareId } = await share(alice, folderId);
      await moveTo(alice, leaves.filename, null);
      const res = await env.api.get(`/api/album/${shareId}`);
      expect(res.body.data.files.map((f: { filename: string }) => f.filename)).to.deep.equal([stays.filename]);

      expect((await env.api.delete(`/api/user/folders/${folderId}`, { key: alice.apiKey })).status).to.equal(200);
      for (const path of [`/api/album/${shareId}`, `/album/${shareId}`, `/album/${shareId}/download`]) {
        expect((await env.api.get(path)).status, path).to.equal(404);
      }
    });

    it('pages through a large album with ?page=', async () => {
      const alice = await env.createAccount();
      const folderId = await createFolder(env, alice, 'Many');
      const uploaded = [];
      for (let i = 0; i < 26; i += 1) uploaded.push((await uploadInto(alice, folderId, pngBytes(300, i))).filename);
      const { shareId } = await share(alice, folderId);
      const first = await env.api.get(`/api/album/${shareId}`);
      const second = await env.api.get(`/api/album/${shareId}?page=2`);
      expect(first.body.data).to.include({ page: 1, totalPages: 2, totalFiles: 26 });
      expect(second.body.data).to.include({ page: 2, totalPages: 2 });
      const names = [...first.body.data.files, ...second.body.data.files].map((f: { filename: string }) => f.filename);
      expect(first.body.data.files).to.have.length(24);
      expect(names).to.deep.equal(uploaded.reverse());
      expect((await env.api.get(`/api/album/${shareId}?page=3`)).body.data.files).to.deep.equal([]);
      expect((await env.api.get(`/api/album/${shareId}?page=0`)).status).to.equal(400);
      expect((await env.api.get(`/api/album/${shareId}?page=x`)).status).to.equal(400);
    });

    it('answers 404 for an album that never existed', async () => {
      for (const id of [randomBytes(16).toString('base64url'), 'short', '../../etc']) {
        const res = await env.api.get(`/api/album/${encodeURIComponent(id)}`);
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.equal({ success: false, error: 'Album not found' });
      }
    });
  });

  describe('GET /album/:shareId', () => {
    it('renders the listed files as images linking to the files, with link-preview tags', async () => {
      const alice = await env.createAccount();
      const { folderId, listed, hidden } = await albumWithHiddenFiles(alice);
      const { shareId, url } = await share(alice, folderId);
      const res = await env.api.get(`/album/${shareId}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).to.equal('no-store');
      // The site's own script (the lightbox) from its origin only: nothing inline.
      expect(res.headers.get('content-security-policy')).to.include("script-src 'self';");
      const page = res.text;
      for (const file of listed) {
        // A tile links to its file and shows it (no thumbnail yet) under its name.
        expect(page).to.match(new RegExp(`<a href="${file.url}" class="tile-link"[^>]*><span class="tile-media"><img src="${file.url}"`));
        expect(page).to.include(`>${file.filename}</span>`);
      }
      for (const file of Object.values(hidden)) expect(page).not.to.include(file.filename);
      expect(page).not.to.match(/<script(?![^>]* src="\/app\/assets\/)/);
      expect(page).to.include(`<meta property="og:url" content="${url}"/>`);
      // No preview rendition yet (no worker here): no image to show (test/api/embeds.test.ts has them).
      expect(page).not.to.include('og:image');
      expect(page).to.include('<meta name="twitter:card" content="summary"/>');
      expect(page).to.match(/<meta property="og:title" content="Trip [0-9a-f]{6}"\/>/);
      expect(page).to.include(`href="${url}/download"`);
    });

    it('escapes the folder name everywhere', async () => {
      const alice = await env.createAccount();
      const folderId = await createFolder(env, alice, `<b>"Tom & Jerry's"</b>`);
      await uploadInto(alice, folderId, pngBytes(500, 1));
      const { shareId } = await share(alice, folderId);
      const page = (await env.api.get(`/album/${shareId}`)).text;
      expect(page).not.to.include('<b>');
      expect(page).to.include('<h1 id="album-title">&lt;b>&quot;Tom &amp; Jerry\'s&quot;&lt;/b></h1>');
      expect(page).to.include('<meta property="og:title" content="&lt;b>&quot;Tom &amp; Jerry\'s&quot;&lt;/b>"/>');
    });

    it('links the next and previous pages', async () => {
      const alice = await env.createAccount();
      const folderId = await createFolder(env, alice, 'Paged');
      for (let i = 0; i < 25; i += 1) await uploadInto(alice, folderId, pngBytes(300, i));
      const { shareId, url } = await share(alice, folderId);
      const first = (await env.api.get(`/album/${shareId}`)).text;
      const second = (await env.api.get(`/album/${shareId}?page=2`)).text;
      expect(first.match(/<img /g)).to.have.length(24);
      expect(first).to.include(`<a class="button" rel="next" href="${url}?page=2">`);
      expect(second.match(/<img /g)).to.have.length(1);
      expect(second).to.include(`<a class="button" rel="prev" href="${url}?page=1">`);
    });

    it('answers 404 for an unknown album', async () => {
      expect((await env.api.get(`/album/${randomBytes(16).toString('base64url')}`)).status).to.equal(404);
    });
  });

  describe('GET /album/:shareId/download', () => {
    it('streams exactly the listed files\' bytes as one zip named after the folder', async () => {
      const alice = await env.createAccount();
      const { folderId, listed } = await albumWithHiddenFiles(alice);
      const { shareId } = await share(alice, folderId);
      const [folder] = await foldersOf(alice);
      const res = await fetch(`${site}/album/${shareId}/download`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/zip');
      const name = (folder as unknown as { name: string }).name;
      expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="${name}.zip"`);
      const zipFile = path.join(env.dataDir, `${shareId}.zip`);
      await pipeline(Readable.fromWeb(res.body as never), createWriteStream(zipFile));
      expect(Number(res.headers.get('content-length'))).to.equal((await stat(zipFile)).size);
      const entries = await unzip(zipFile);
      expect([...entries.keys()].sort()).to.deep.equal(listed.map((f) => f.filename).sort());
      for (const file of listed) expect(entries.get(file.filename)).to.deep.equal({ size: file.bytes.length, sha256: sha256(file.bytes) });
    });

    it('zips an empty album', async () => {
      const alice = await env.createAccount();
      const { shareId } = await share(alice, await createFolder(env, alice, 'Empty'));
      const res = await fetch(`${site}/album/${shareId}/download`);
      expect(res.status).to.equal(200);
      const zipFile = path.join(env.dataDir, `${shareId}.zip`);
      await pipeline(Readable.fromWeb(res.body as never), createWriteStream(zipFile));
      expect((await unzip(zipFile)).size).to.equal(0);
    });

    it('reads the files as the zip is read: memory does not grow with the zip', async function () {
      this.timeout(180_000);
      const alice = await env.createAccount();
      const folderId = await createFolder(env, alice, 'Big');
      const FILES = 4;
      const CHUNK = 1024 * 1024;
      const CHUNKS = 20; // 4 × 20 MiB = 80 MiB
      const expected = new Map<string, string>();
      for (let i = 0; i < FILES; i += 1) {
        // Streamed to the server from a 1 MiB chunk, so the test itself never holds a big file.
        const chunk = randomBytes(CHUNK);
        const hash = createHash('sha256');
        for (let c = 0; c < CHUNKS; c += 1) hash.update(chunk);
        const filename = await streamUpload(alice, repeatedStream(chunk, CHUNKS), `big-${i}.bin`);
        await moveTo(alice, filename, folderId);
        expected.set(filename, hash.digest('hex'));
      }
      const { shareId } = await share(alice, folderId);

      const zipFile = path.join(env.dataDir, 'big.zip');
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 10);
      try {
        const res = await fetch(`${site}/album/${shareId}/download`);
        expect(res.status).to.equal(200);
        // A slow reader: the server must wait for it rather than read ahead into memory.
        const throttle = new PassThrough({ highWaterMark: 64 * 1024 });
        await pipeline(Readable.fromWeb(res.body as never), throttle, createWriteStream(zipFile, { highWaterMark: 64 * 1024 }));
      } finally {
        clearInterval(sampler);
      }
      const zipSize = (await stat(zipFile)).size;
      expect(zipSize).to.be.greaterThan(FILES * CHUNKS * CHUNK);
      const growth = peak - before;
      expect(growth, `RSS grew by ${(growth / 1024 / 1024).toFixed(1)} MiB for a ${(zipSize / 1024 / 1024).toFixed(0)} MiB zip`).to.be.lessThan(zipSize / 4);

      const entries = await unzip(zipFile);
      expect(entries.size).to.equal(FILES);
      for (const [filename, digest] of expected) expect(entries.get(filename)).to.deep.equal({ size: CHUNK * CHUNKS, sha256: digest });
    });

    it('closes the file being read when the visitor stops downloading', async function () {
      this.timeout(60_000);
      const alice = await env.createAccount();
      const folderId = await createFolder(env, alice, 'Abandoned');
      const filename = await streamUpload(alice, repeatedStream(randomBytes(1024 * 1024), 16), 'large.bin');
      await moveTo(alice, filename, folderId);
      const { shareId } = await share(alice, folderId);
      const [row] = await env.container.db.select().from(files).where(eq(files.filename, filename));
      const objectPath = env.container.storage.localPath!(row!.objectKey);
      const openOnObject = async () => {
        const fds = await readdir('/proc/self/fd');
        const targets = await Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
        return targets.filter((target) => target === objectPath).length;
      };

      const controller = new AbortController();
      const res = await fetch(`${site}/album/${shareId}/download`, { signal: controller.signal });
      const reader = res.body!.getReader();
      await reader.read();
      expect(await openOnObject()).to.equal(1);
      controller.abort();
      await reader.read().catch(() => undefined);
      await eventually(async () => (await openOnObject()) === 0);
      expect((await env.api.get(`/api/album/${shareId}`)).status).to.equal(200);
    });
  });

  /** POST /api/upload with a multipart body streamed from `content` (never built in memory). */
  async function streamUpload(account: Account, content: Readable, name: string): Promise<string> {
    const boundary = `----album${randomBytes(8).toString('hex')}`;
    async function* body() {
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
      for await (const chunk of content) yield chunk as Buffer;
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    }
    const res = await fetch(`${env.web.url}/api/upload?format=json`, {
      method: 'POST',
      headers: { 'x-api-key': account.apiKey, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Readable.toWeb(Readable.from(body())) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    const json = (await res.json()) as { data: { filename: string } };
    expect(res.status).to.equal(200);
    return json.data.filename;
  }
});
