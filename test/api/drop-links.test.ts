import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { accounts, dropLinks } from '../../shared/db/schema.js';
import { eventually } from '../helpers/eventually.js';
import { pngBytes } from '../helpers/media.js';
import { createTestEnv, startSecondWebProcess, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, refusedUploadChecks, storageUsedBy, storedObjects } from '../helpers/uploads.js';

const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

/** A drop as the page's script sends it (JSON answer), or as the plain form does (`json: false`). */
async function drop(baseUrl: string, token: string, bytes: Buffer, options: { name?: string; json?: boolean } = {}) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), options.name ?? 'scan.png');
  const res = await fetch(`${baseUrl}/drop/${token}`, {
    method: 'POST',
    body: form,
    headers: options.json === false ? { accept: 'text/html' } : { accept: 'application/json' },
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', retryAfter: res.headers.get('retry-after'), text, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined };
}

describe('file drop links', function () {
  this.timeout(30_000);
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ env: { PLAN_FREE_MAX_FILE_SIZE: '50000' } });
  });
  after(() => env.close());

  const refused = refusedUploadChecks(() => env);
  beforeEach(() => refused.snapshot());
  const expectNothingStored = refused.expectNothingStored;

  async function createLink(key: string, json: Record<string, unknown> = {}) {
    const res = await env.api.post('/api/user/drop-links', { key, json });
    expect(res.status).to.equal(200);
    return res.body.data as { id: string; url: string; status: string; expiresAt: string };
  }

  describe('POST /api/user/drop-links', () => {
    it('answers the link at {SITE_URL}/drop/{token}, pending, expiring in an hour by default', async () => {
      const alice = await env.createAccount();
      const before = Date.now();
      const link = await createLink(alice.apiKey, { note: 'the signed contract' });
      expect(link.status).to.equal('pending');
      expect(link.url).to.match(new RegExp(`^${env.container.config.siteUrl}/drop/[A-Za-z0-9_-]{32}$`));
      expect(link.url).not.to.include(link.id);
      const expires = Date.parse(link.expiresAt) - before;
      expect(expires).to.be.within(3590_000, 3610_000);
      const [row] = await env.container.db.select().from(dropLinks).where(eq(dropLinks.id, link.id));
      expect(row!.tokenHash).to.have.length(64);
      expect(row!.tokenSealed).not.to.include(tokenOf(link.url));
    });

    it('refuses an expiry over 7 days and a folder of another account', async () => {
      const alice = await env.createAccount();
      const bob = await env.createAccount();
      const folder = await env.api.post('/api/user/folders', { key: bob.apiKey, json: { name: 'inbox' } });
      expect((await env.api.post('/api/user/drop-links', { key: alice.apiKey, json: { expiresIn: 7 * 86400 + 1 } })).status).to.equal(400);
      const res = await env.api.post('/api/user/drop-links', { key: alice.apiKey, json: { folderId: folder.body.data.id } });
      expect(res.status).to.equal(404);
    });
  });

  describe('GET /api/user/drop-links/:id?wait=', () => {
    it('returns the file dropped through a second web process while the request waits', async () => {
      const alice = await env.createAccount();
      const second = await startSecondWebProcess(env);
      try {
        const link = await createLink(alice.apiKey);
        const started = Date.now();
        const waiting = env.api.get(`/api/user/drop-links/${link.id}?wait=20`, { key: alice.apiKey });
        // Drop only once the waiter listens, so the drop reaches it as an event (not by a first read).
        await eventually(async () => env.web.hub.listenerCount(alice.id) === 1);
        const bytes = pngBytes(4000, 7);
        const dropped = await drop(second.web.url, tokenOf(link.url), bytes, { name: 'scan.png' });
        expect(dropped.status).to.equal(200);
        const res = await waiting;
        expect(Date.now() - started).to.be.below(10_000);
        expect(res.status).to.equal(200);
        expect(res.body.data.status).to.equal('received');
        const file = res.body.data.file;
        expect(file).to.include({ originalName: 'scan.png', size: 4000, source: 'drop', folderId: null, isPrivate: false, mimeType: 'image/png' });
        // The dashboard's record of an upload.
        expect(file).to.have.all.keys(
          'filename', 'originalName', 'url', 'timestamp', 'updatedAt', 'size', 'sha256', 'folderId', 'source', 'isPrivate',
          'mimeType', 'expiry', 'expiresAt', 'moderationState', 'thumbnailUrl', 'previewUrl',
        );
        const rows = await fileRowsOf(env, alice.id);
        expect(rows.map((r) => r.filename)).to.deep.equal([file.filename]);
        expect(await storageUsedBy(env, alice.id)).to.equal(4000);

        const notes = await env.api.get('/api/user/notifications', { key: alice.apiKey });
        const note = notes.body.data.notifications.find((n: { type: string }) => n.type === 'drop');
        expect(note.data).to.include({ dropLinkId: link.id, filename: file.filename });
      } finally {
        await second.close();
      }
    });

    it('answers after the wait with the link still pending when nothing arrives', async () => {
      const alice = await env.createAccount();
      const link = await createLink(alice.apiKey);
      const started = Date.now();
      const res = await env.api.get(`/api/user/drop-links/${link.id}?wait=1`, { key: alice.apiKey });
      expect(Date.now() - started).to.be.within(900, 5000);
      expect(res.body.data).to.include({ status: 'pending', file: null });
      expect((await env.api.get(`/api/user/drop-links/${link.id}?wait=31`, { key: alice.apiKey })).status).to.equal(400);
    });
  });

  describe('POST /drop/:token', () => {
    it('is single use: a second drop is 410 and stores nothing', async () => {
      const alice = await env.createAccount();
      const link = await createLink(alice.apiKey);
      expect((await drop(env.web.url, tokenOf(link.url), pngBytes(1000, 1))).status).to.equal(200);
      const objects = await storedObjects(env);
      const second = await drop(env.web.url, tokenOf(link.url), pngBytes(1000, 2));
      expect(second.status).to.equal(410);
      expect(second.body).to.deep.include({ success: false });
      expect(second.body.error).to.be.a('string');
      expect(await fileRowsOf(env, alice.id)).to.have.length(1);
      expect(await storedObjects(env)).to.deep.equal(objects);
    });

    it('lets exactly one of two concurrent drops succeed; the loser keeps nothing', async () => {
      const alice = await env.createAccount();
      const link = await createLink(alice.apiKey);
      const results = await Promise.all([1, 2].map((seed) => drop(env.web.url, tokenOf(link.url), pngBytes(3000, seed))));
      expect(results.map((r) => r.status).sort()).to.deep.equal([200, 410]);
      expect(await fileRowsOf(env, alice.id)).to.have.length(1);
      expect((await storedObjects(env)).length).to.equal(refused.objectsBefore().length + 1);
      expect(await storageUsedBy(env, alice.id)).to.equal(3000);
    });

    it('is 410 once the link has expired, and the link reads as expired', async () => {
      const alice = await env.createAccount();
      const link = await createLink(alice.apiKey);
      await env.container.db.update(dropLinks).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(dropLinks.id, link.id));
      const res = await drop(env.web.url, tokenOf(link.url), pngBytes(1000));
      expect(res.status).to.equal(410);
      expect(res.body.success).to.equal(false);
      await expectNothingStored(alice);
      expect((await env.api.get(`/api/user/drop-links/${link.id}`, { key: alice.apiKey })).body.data.status).to.equal('expired');
    });

    it('takes a link again whose claim was left by a process that died before committing, but not one in flight', async () => {
      const alice = await env.createAccount();
      const link = await createLink(alice.apiKey);
      const claimed = (ago: number) =>
        env.container.db.update(dropLinks).set({ status: 'received', claimedAt: new Date(Date.now() - ago) }).where(eq(dropLinks.id, link.id));
      await claimed(1000);
      expect((await drop(env.web.url, tokenOf(link.url), pngBytes(1000, 5))).status).to.equal(410);
      await claimed(10 * 60_000);
      const res = await drop(env.web.url, tokenOf(link.url), pngBytes(1000, 6));
      expect(res.status).to.equal(200);
      const status = await env.api.get(`/api/user/drop-links/${link.id}`, { key: alice.apiKey });
      expect(status.body.data.status).to.equal('received');
      expect(await fileRowsOf(env, alice.id)).to.have.length(1);
    });

    it('is 413 over the link maxSizeBytes and over the plan limit, with no row, object or charge', async () => {
      const alice = await env.createAccount();
      const small = await createLink(alice.apiKey, { maxSizeBytes: 2000 });
      const res = await drop(env.web.url, tokenOf(small.url), pngBytes(5000));
      expect(res.status).to.equal(413);
      expect(res.body.success).to.equal(false);
      await expectNothingStored(alice);
      const plan = await createLink(alice.apiKey);
      expect((await drop(env.web.url, tokenOf(plan.url), pngBytes(60_000))).status).to.equal(413);
      await expectNothingStored(alice);
      // The refused drops did not spend the links.
      expect((await env.api.get(`/api/user/drop-links/${small.id}`, { key: alice.apiKey })).body.data.status).to.equal('pending');
    });

    it('is 403 while the requester is banned', async () => {
      const alice = await env.createAccount();
      const link = await createLink(alice.apiKey);
      await env.container.db.update(accounts).set({ status: 'banned' }).where(eq(accounts.id, alice.id));
      expect((await drop(env.web.url, tokenOf(link.url), pngBytes(1000))).status).to.equal(403);
      await expectNothingStored(alice);
    });

    it('is 404 for an unknown token', async () => {
      const res = await drop(env.web.url, 'A'.repeat(32), pngBytes(1000));
      expect(res.status).to.equal(404);
      expect((await fetch(`${env.web.url}/drop/nope`)).status).to.equal(404);
    });

    it('works as a plain form post and answers a result page', async () => {
      const alice = await env.createAccount();
      const folder = await env.api.post('/api/user/folders', { key: alice.apiKey, json: { name: 'contracts' } });
      const folderId = folder.body.data.id as string;
      const link = await createLink(alice.apiKey, { folderId, note: 'Please send <the> scan' });
      const pageRes = await fetch(`${env.web.url}/drop/${tokenOf(link.url)}`);
      const page = await pageRes.text();
      expect(pageRes.status).to.equal(200);
      expect(page).to.include(alice.username).and.include('Please send &lt;the> scan');
      expect(page).to.match(/<form id="drop-form" method="post" enctype="multipart\/form-data" action="\/drop\/[A-Za-z0-9_-]{32}"[^>]*>/);

      const res = await drop(env.web.url, tokenOf(link.url), pngBytes(1500), { name: 'contract.png', json: false });
      expect(res.status).to.equal(200);
      expect(res.type).to.match(/^text\/html/);
      expect(res.text).to.include('File sent').and.include('contract.png');
      const [row] = await fileRowsOf(env, alice.id);
      expect(row).to.include({ source: 'drop', folderId, originalName: 'contract.png' });

      const again = await drop(env.web.url, tokenOf(link.url), pngBytes(1500), { json: false });
      expect(again.status).to.equal(410);
      expect(again.text).to.include('File not sent');
    });
  });

  describe('GET, DELETE /api/user/drop-links', () => {
    it('lists the account links; a cancelled link is 404, unlisted, and its page answers 410', async () => {
      const alice = await env.createAccount();
      const kept = await createLink(alice.apiKey);
      const cancelled = await createLink(alice.apiKey);
      expect((await env.api.delete(`/api/user/drop-links/${cancelled.id}`, { key: alice.apiKey })).status).to.equal(200);
      const list = await env.api.get('/api/user/drop-links', { key: alice.apiKey });
      expect(list.body.data.dropLinks.map((l: { id: string }) => l.id)).to.deep.equal([kept.id]);
      expect((await env.api.get(`/api/user/drop-links/${cancelled.id}`, { key: alice.apiKey })).status).to.equal(404);
      expect((await env.api.delete(`/api/user/drop-links/${cancelled.id}`, { key: alice.apiKey })).status).to.equal(404);
      expect((await drop(env.web.url, tokenOf(cancelled.url), pngBytes(1000))).status).to.equal(410);
      expect((await fetch(`${env.web.url}/drop/${tokenOf(cancelled.url)}`)).status).to.equal(410);
      await expectNothingStored(alice);
    });

    it('answers 404 for a link of another account', async () => {
      const alice = await env.createAccount();
      const bob = await env.createAccount();
      const link = await createLink(alice.apiKey);
      expect((await env.api.get(`/api/user/drop-links/${link.id}`, { key: bob.apiKey })).status).to.equal(404);
      expect((await env.api.get(`/api/user/drop-links/${link.id}?wait=1`, { key: bob.apiKey })).status).to.equal(404);
      expect((await env.api.delete(`/api/user/drop-links/${link.id}`, { key: bob.apiKey })).status).to.equal(404);
      expect((await env.api.get('/api/user/drop-links', { key: bob.apiKey })).body.data.dropLinks).to.deep.equal([]);
      expect((await env.api.get(`/api/user/drop-links/${link.id}`, { key: alice.apiKey })).status).to.equal(200);
    });
  });
});

describe('file drops per IP address', () => {
  it('answers 429 with Retry-After past the per-IP limit, and stores nothing for it', async () => {
    const env = await createTestEnv({ env: { RATE_LIMIT_ANONYMOUS_UPLOADS_PER_MINUTE: '2' } });
    try {
      const alice = await env.createAccount();
      const links = [];
      for (let i = 0; i < 3; i++) links.push((await env.api.post('/api/user/drop-links', { key: alice.apiKey, json: {} })).body.data as { url: string });
      expect((await drop(env.web.url, tokenOf(links[0]!.url), pngBytes(1000, 1))).status).to.equal(200);
      expect((await drop(env.web.url, tokenOf(links[1]!.url), pngBytes(1000, 2))).status).to.equal(200);
      const res = await drop(env.web.url, tokenOf(links[2]!.url), pngBytes(1000, 3));
      expect(res.status).to.equal(429);
      expect(res.retryAfter).to.match(/^\d+$/);
      expect(await fileRowsOf(env, alice.id)).to.have.length(2);
    } finally {
      await env.close();
    }
  });
});
