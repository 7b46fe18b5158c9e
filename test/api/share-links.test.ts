import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { shareLinks } from '../../shared/db/schema.js';
import { createFolder } from '../helpers/folders.js';
import { pngBytes } from '../helpers/media.js';
import { createTestEnv, startSecondWebProcess, type TestEnv } from '../helpers/test-env.js';
import { upload } from '../helpers/uploads.js';

type Account = { id: string; username: string; apiKey: string };
type Link = { id: string; url: string; type: string; filename: string | null; folderId: string | null; expiresAt: string | null; maxViews: number | null; views: number; hasPassword: boolean; createdAt: string };

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('share links', function () {
  this.timeout(60_000);
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv();
  });
  after(() => env.close());

  async function uploadFile(account: Account, bytes: Buffer, options: { folderId?: string; isPrivate?: boolean } = {}) {
    const res = await upload(env, { key: account.apiKey, bytes, name: 'photo.png', json: true });
    expect(res.status).to.equal(200);
    const filename = res.body.data.filename as string;
    if (options.folderId) expect((await env.api.patch(`/api/user/images/${filename}/move`, { key: account.apiKey, json: { folderId: options.folderId } })).status).to.equal(200);
    if (options.isPrivate) expect((await env.api.patch(`/api/user/images/${filename}/privacy`, { key: account.apiKey, json: { isPrivate: true } })).status).to.equal(200);
    return filename;
  }

  async function createLink(account: Account, json: Record<string, unknown>): Promise<Link> {
    const res = await env.api.post('/api/user/share-links', { key: account.apiKey, json });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.success).to.equal(true);
    return res.body.data as Link;
  }

  describe('POST, GET and DELETE /api/user/share-links', () => {
    it('creates a file link at {SITE_URL}/l/{token}, storing only the token’s hash, and lists it newest first', async () => {
      const alice = await env.createAccount();
      const filename = await uploadFile(alice, pngBytes(500, 1));
      const folderId = await createFolder(env, alice, 'Holiday');
      const first = await createLink(alice, { filename, expiresIn: 3600, maxViews: 5, password: 'open sesame' });
      expect(first).to.include({ type: 'file', filename, folderId: null, maxViews: 5, views: 0, hasPassword: true });
      expect(first.url).to.match(new RegExp(`^${env.container.config.siteUrl}/l/[A-Za-z0-9_-]{43}$`));
      expect(Date.parse(first.expiresAt!) - Date.now()).to.be.within(3590_000, 3610_000);
      const second = await createLink(alice, { folderId });
      expect(second).to.include({ type: 'folder', filename: null, folderId, maxViews: null, expiresAt: null, hasPassword: false });

      const [row] = await env.container.db.select().from(shareLinks).where(eq(shareLinks.id, first.id));
      const token = first.url.slice(first.url.lastIndexOf('/') + 1);
      expect(row!.tokenHash).to.have.length(64);
      expect(JSON.stringify(row)).not.to.include(token);
      expect(row!.passwordHash).not.to.include('open sesame');

      const list = await env.api.get('/api/user/share-links', { key: alice.apiKey });
      expect(list.status).to.equal(200);
      expect((list.body.data as Link[]).map((link) => link.id)).to.deep.equal([second.id, first.id]);
      expect((list.body.data as Link[])[1]!.url).to.equal(first.url);
    });

    it('refuses both targets or none (400), values out of range (400), and another account’s or an unknown target (404)', async () => {
      const alice = await env.createAccount();
      const bob = await env.createAccount();
      const filename = await uploadFile(alice, pngBytes(500, 2));
      const folderId = await createFolder(env, alice, 'Mine');
      const post = (account: Account, json: Record<string, unknown>) => env.api.post('/api/user/share-links', { key: account.apiKey, json });
      for (const json of [{}, { filename, folderId }, { filename, expiresIn: 59 }, { filename, expiresIn: 31_536_001 }, { filename, maxViews: 0 }, { filename, maxViews: 1_000_001 }, { filename, password: 'abc' }, { filename, password: 'x'.repeat(129) }, { filename, maxViews: 1.5 }]) {
        const res = await post(alice, json);
        expect(res.status, JSON.stringify(json)).to.equal(400);
        expect(res.body.success).to.equal(false);
        expect(res.body.error).to.be.a('string');
      }
      expect((await post(bob, { filename })).status).to.equal(404);
      expect((await post(bob, { folderId })).status).to.equal(404);
      expect((await post(alice, { folderId: UNKNOWN_ID })).status).to.equal(404);
      expect((await post(alice, { filename: 'nothing.png' })).status).to.equal(404);
      expect(await env.container.db.select().from(shareLinks).where(eq(shareLinks.accountId, bob.id))).to.have.length(0);
    });

    it('answers 404 for another account’s link on DELETE and keeps it out of its list', async () => {
      const alice = await env.createAccount();
      const bob = await env.createAccount();
      const link = await createLink(alice, { filename: await uploadFile(alice, pngBytes(500, 3)) });
      const res = await env.api.delete(`/api/user/share-links/${link.id}`, { key: bob.apiKey });
      expect(res.status).to.equal(404);
      expect((await env.api.get('/api/user/share-links', { key: bob.apiKey })).body.data).to.deep.equal([]);
      expect((await fetch(link.url)).status).to.equal(200);
      expect((await env.api.delete(`/api/user/share-links/${UNKNOWN_ID}`, { key: alice.apiKey })).status).to.equal(404);
    });
  });

  describe('GET {SITE_URL}/l/{token} of a file', () => {
    it('serves a private file with the hosted-file headers and Cache-Control: private, no-store', async () => {
      const alice = await env.createAccount();
      const bytes = pngBytes(3000, 4);
      const filename = await uploadFile(alice, bytes, { isPrivate: true });
      const link = await createLink(alice, { filename });
      const res = await fetch(link.url);
      expect(res.status).to.equal(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).to.equal(true);
      expect(res.headers.get('content-type')).to.equal('image/png');
      expect(res.headers.get('cache-control')).to.equal('private, no-store');
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(res.headers.get('content-security-policy')).to.include('sandbox');
      expect(res.headers.get('etag')).to.be.a('string');
      expect(res.headers.get('accept-ranges')).to.equal('bytes');
      const ranged = await fetch(link.url, { headers: { range: 'bytes=10-19' } });
      expect(ranged.status).to.equal(206);
      expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(10, 20))).to.equal(true);
    });

    it('gives exactly maxViews whole bodies under 50 concurrent GETs, then 410; HEAD, 304 and later ranges do not count', async () => {
      const alice = await env.createAccount();
      const link = await createLink(alice, { filename: await uploadFile(alice, pngBytes(2000, 5)), maxViews: 3 });
      expect((await fetch(link.url, { method: 'HEAD' })).status).to.equal(200);
      const etag = (await fetch(link.url, { method: 'HEAD' })).headers.get('etag')!;
      // fetch would add Cache-Control: no-cache to a conditional request, which no server answers with 304.
      expect((await fetch(link.url, { headers: { 'if-none-match': etag, 'cache-control': 'max-age=60' } })).status).to.equal(304);
      expect((await fetch(link.url, { headers: { range: 'bytes=100-' } })).status).to.equal(206);
      const answers = await Promise.all(Array.from({ length: 50 }, () => fetch(link.url).then(async (res) => ({ status: res.status, size: (await res.arrayBuffer()).byteLength }))));
      const bodies = answers.filter((answer) => answer.status === 200);
      expect(bodies).to.have.length(3);
      expect(bodies.every((answer) => answer.size === 2000)).to.equal(true);
      expect(answers.filter((answer) => answer.status === 410)).to.have.length(47);
      const after = await fetch(link.url, { headers: { accept: 'application/json' } });
      expect(after.status).to.equal(410);
      expect(await after.json()).to.include({ success: false });
      const [row] = await env.container.db.select().from(shareLinks).where(eq(shareLinks.id, link.id));
      expect(row!.views).to.equal(3);
    });

    it('answers 410 once expired', async () => {
      const alice = await env.createAccount();
      const link = await createLink(alice, { filename: await uploadFile(alice, pngBytes(500, 6)), expiresIn: 60 });
      expect((await fetch(link.url)).status).to.equal(200);
      await env.container.db.update(shareLinks).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(shareLinks.id, link.id));
      expect((await fetch(link.url)).status).to.equal(410);
    });

    it('answers 404 on another web process as soon as the DELETE is answered', async () => {
      const alice = await env.createAccount();
      const second = await startSecondWebProcess(env);
      try {
        const link = await createLink(alice, { filename: await uploadFile(alice, pngBytes(500, 7)) });
        const path = new URL(link.url).pathname;
        expect((await fetch(`${second.web.url}${path}`)).status).to.equal(200);
        const res = await env.api.delete(`/api/user/share-links/${link.id}`, { key: alice.apiKey });
        expect(res.status).to.equal(200);
        expect(res.body).to.deep.equal({ success: true, message: 'Share link revoked' });
        expect((await fetch(`${second.web.url}${path}`)).status).to.equal(404);
        expect((await fetch(link.url)).status).to.equal(404);
      } finally {
        await second.close();
      }
    });

    it('answers 404 for unknown and malformed tokens', async () => {
      const site = env.container.config.siteUrl;
      expect((await fetch(`${site}/l/${'A'.repeat(43)}`)).status).to.equal(404);
      expect((await fetch(`${site}/l/short`)).status).to.equal(404);
    });
  });

  describe('password', () => {
    it('takes the x-share-password header; without it or with a wrong one 401, names nothing of the file', async () => {
      const alice = await env.createAccount();
      const bytes = pngBytes(700, 8);
      const filename = await uploadFile(alice, bytes);
      const link = await createLink(alice, { filename, password: 'correct horse' });
      const none = await fetch(link.url);
      expect(none.status).to.equal(401);
      expect(await none.text()).not.to.include(filename);
      const wrong = await fetch(link.url, { headers: { 'x-share-password': 'wrong horse' } });
      expect(wrong.status).to.equal(401);
      expect(await wrong.json()).to.include({ success: false, error: 'Wrong password' });
      const right = await fetch(link.url, { headers: { 'x-share-password': 'correct horse' } });
      expect(right.status).to.equal(200);
      expect(Buffer.from(await right.arrayBuffer()).equals(bytes)).to.equal(true);
    });

    it('shows a browser a labelled password form (401), and the right password posted sets the link’s cookie and redirects back (303)', async () => {
      const alice = await env.createAccount();
      const bytes = pngBytes(700, 9);
      const filename = await uploadFile(alice, bytes);
      const link = await createLink(alice, { filename, password: 'correct horse' });
      const path = new URL(link.url).pathname;
      const page = await fetch(link.url, { headers: { accept: 'text/html' } });
      expect(page.status).to.equal(401);
      const text = await page.text();
      expect(text).to.include('<label for="share-password">');
      expect(text).not.to.include(filename);
      expect(text).not.to.include('<img');
      expect(text).not.to.match(/<script>/);

      const wrong = await fetch(link.url, { method: 'POST', headers: { accept: 'text/html' }, body: new URLSearchParams({ password: 'nope nope' }), redirect: 'manual' });
      expect(wrong.status).to.equal(401);
      expect(await wrong.text()).to.include('Wrong password');

      const posted = await fetch(link.url, { method: 'POST', headers: { accept: 'text/html' }, body: new URLSearchParams({ password: 'correct horse' }), redirect: 'manual' });
      expect(posted.status).to.equal(303);
      expect(posted.headers.get('location')).to.equal(path);
      const cookie = posted.headers.get('set-cookie')!;
      expect(cookie).to.match(/httponly/i).and.match(/samesite=lax/i).and.include(`path=${path}`);
      expect(cookie).not.to.include('correct');
      const opened = await fetch(link.url, { headers: { accept: 'text/html', cookie: cookie.split(';')[0]! } });
      expect(opened.status).to.equal(200);
      expect(Buffer.from(await opened.arrayBuffer()).equals(bytes)).to.equal(true);
    });

    it('answers 429 with Retry-After after 10 wrong tries per link and address', async () => {
      const alice = await env.createAccount();
      const link = await createLink(alice, { filename: await uploadFile(alice, pngBytes(700, 10)), password: 'correct horse' });
      for (let i = 0; i < 10; i += 1) expect((await fetch(link.url, { headers: { 'x-share-password': `wrong ${i}` } })).status).to.equal(401);
      const refused = await fetch(link.url, { headers: { 'x-share-password': 'correct horse' } });
      expect(refused.status).to.equal(429);
      expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 600);
      const page = await fetch(link.url, { method: 'POST', headers: { accept: 'text/html' }, body: new URLSearchParams({ password: 'x y z w' }), redirect: 'manual' });
      expect(page.status).to.equal(429);
      expect(page.headers.get('retry-after')).to.be.a('string');
      // Another link of the same account is not held back.
      const other = await createLink(alice, { filename: await uploadFile(alice, pngBytes(700, 11)), password: 'correct horse' });
      expect((await fetch(other.url, { headers: { 'x-share-password': 'correct horse' } })).status).to.equal(200);
    });
  });

  describe('GET {SITE_URL}/l/{token} of a folder', () => {
    it('shows the folder’s files, private ones included, each under the link, their zip, and nothing outside the folder', async () => {
      const alice = await env.createAccount();
      const folderId = await createFolder(env, alice, 'Wedding');
      const publicFile = await uploadFile(alice, pngBytes(900, 12), { folderId });
      const privateBytes = pngBytes(901, 13);
      const privateFile = await uploadFile(alice, privateBytes, { folderId, isPrivate: true });
      const outside = await uploadFile(alice, pngBytes(902, 14), { isPrivate: true });
      const link = await createLink(alice, { folderId });
      const page = await fetch(link.url, { headers: { accept: 'text/html' } });
      expect(page.status).to.equal(200);
      expect(page.headers.get('cache-control')).to.equal('no-store');
      const text = await page.text();
      expect(text).to.include(`${link.url}/f/${privateFile}`).and.include(`${link.url}/f/${publicFile}`).and.include(`${link.url}/download`);
      expect(text).not.to.include(outside);

      const file = await fetch(`${link.url}/f/${privateFile}`);
      expect(file.status).to.equal(200);
      expect(file.headers.get('cache-control')).to.equal('private, no-store');
      expect(Buffer.from(await file.arrayBuffer()).equals(privateBytes)).to.equal(true);
      expect((await fetch(`${link.url}/f/${outside}`)).status).to.equal(404);
      expect((await fetch(`${link.url}/f/..%2F${outside}`)).status).to.equal(404);

      const zip = await fetch(`${link.url}/download`);
      expect(zip.status).to.equal(200);
      expect(zip.headers.get('content-type')).to.equal('application/zip');
      const body = Buffer.from(await zip.arrayBuffer());
      expect(body.includes(Buffer.from(privateFile))).to.equal(true);
      expect(body.includes(Buffer.from(outside))).to.equal(false);

      // A file link does not reach other files by path.
      const fileLink = await createLink(alice, { filename: publicFile });
      expect((await fetch(`${fileLink.url}/f/${privateFile}`)).status).to.equal(404);
      expect((await fetch(`${fileLink.url}/download`)).status).to.equal(404);
    });

    it('counts the page, each file and the zip as views', async () => {
      const alice = await env.createAccount();
      const folderId = await createFolder(env, alice, 'Counted');
      const filename = await uploadFile(alice, pngBytes(900, 15), { folderId });
      const link = await createLink(alice, { folderId, maxViews: 2 });
      expect((await fetch(link.url)).status).to.equal(200);
      expect((await fetch(`${link.url}/f/${filename}`)).status).to.equal(200);
      expect((await fetch(`${link.url}/download`)).status).to.equal(410);
      expect((await fetch(link.url)).status).to.equal(410);
    });
  });
});
