import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { accounts, folders } from '../../shared/db/schema.js';
import { SITE_SESSION_COOKIE } from '../../shared/services/accounts/site-session.service.js';
import { secondsUntilNextUtcDay } from '../../shared/time.js';
import { elfBytes, pngBytes } from '../helpers/media.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, getWithHost, refusedUploadChecks, storageUsedBy, storedObjects, upload } from '../helpers/uploads.js';

describe('POST /api/upload', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ env: { PLAN_FREE_MAX_FILE_SIZE: '50000', PLAN_ANONYMOUS_MAX_FILE_SIZE: '20000' } });
  });
  after(() => env.close());

  const refused = refusedUploadChecks(() => env);
  beforeEach(() => refused.snapshot());
  const expectNothingStored = refused.expectNothingStored;

  describe('accepted uploads', () => {
    it('answers the hosted URL as plain text, and the URL serves the bytes at once', async () => {
      const alice = await env.createAccount();
      const bytes = pngBytes(3000, 1);
      const res = await upload(env, { key: alice.apiKey, bytes, name: 'holiday photo.png' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain/);
      const url = res.text;
      expect(url).to.match(new RegExp(`^http://${alice.username}\\.localhost:\\d+/[A-Za-z0-9]{10}\\.png$`));
      const served = await getWithHost(url);
      expect(served.status).to.equal(200);
      expect(served.headers['content-type']).to.equal('image/png');
      expect(Buffer.compare(served.body, bytes)).to.equal(0);
    });

    it('answers the spec JSON (plus deletionUrl and sha256) with ?format=json or x-response-format: json', async () => {
      const alice = await env.createAccount();
      for (const options of [{ json: true }, { headers: { 'x-response-format': 'json' } }]) {
        const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(1000), name: 'cat.png', ...options });
        expect(res.status).to.equal(200);
        expect(res.body.success).to.equal(true);
        expect(res.body.data).to.have.all.keys('url', 'filename', 'originalFilename', 'mimeType', 'sizeBytes', 'sha256', 'expiry', 'deletionUrl');
        expect(res.body.data).to.include({ originalFilename: 'cat.png', mimeType: 'image/png', sizeBytes: 1000, expiry: null });
        expect(res.body.data.url.endsWith(`/${res.body.data.filename}`)).to.equal(true);
        expect(res.body.data.deletionUrl).to.match(/\/api\/delete\/[^?]+\?token=[0-9a-f]{32}$/);
      }
    });

    it('accepts the field "image" and takes the content type from the bytes, not the name', async () => {
      const alice = await env.createAccount();
      const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(500), name: 'notes.txt', field: 'image', json: true });
      expect(res.status).to.equal(200);
      expect(res.body.data.mimeType).to.equal('image/png');
      expect(res.body.data.filename).to.match(/\.png$/);
    });

    it('gives plain text a safe extension and never keeps an executable one', async () => {
      const alice = await env.createAccount();
      const res = await upload(env, { key: alice.apiKey, bytes: Buffer.from('hello world\n'), name: 'run.exe', json: true });
      expect(res.status).to.equal(200);
      expect(res.body.data.mimeType).to.equal('text/plain');
      expect(res.body.data.filename).to.match(/\.txt$/);
    });

    it('charges the usage and records the file in the default upload folder', async () => {
      const alice = await env.createAccount();
      const [folder] = await env.container.db.insert(folders).values({ accountId: alice.id, name: 'inbox' }).returning();
      await env.container.db.update(accounts).set({ defaultUploadFolderId: folder!.id }).where(eq(accounts.id, alice.id));
      const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(1234), json: true });
      expect(res.status).to.equal(200);
      const [row] = await fileRowsOf(env, alice.id);
      expect(row).to.include({ folderId: folder!.id, size: 1234, source: 'api', filename: res.body.data.filename });
      const me = await env.api.get('/api/auth/me', { key: alice.apiKey });
      expect(me.body.data.user.usage).to.include({ count: 1, monthlyStorageUsed: 1234 });
      expect(await env.container.services.accounts.uploadsToday(alice.id)).to.equal(1);
    });
  });

  describe('400', () => {
    let alice: { id: string; apiKey: string };
    beforeEach(async () => {
      alice = await env.createAccount();
    });

    it('refuses a body that is not multipart', async () => {
      const res = await env.api.post('/api/upload', { key: alice.apiKey, json: { file: 'x' } });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({ success: false, error: 'The body must be multipart/form-data' });
      await expectNothingStored(alice);
    });

    it('refuses a malformed or truncated multipart body and keeps nothing of it', async () => {
      const alice = await env.createAccount();
      const head = '--b0undary\r\nContent-Disposition: form-data; name="file"; filename="x.png"\r\nContent-Type: image/png\r\n\r\n';
      // A file part well past the sniffer's head, so bytes are already flowing to storage when it ends.
      const truncated = Buffer.concat([Buffer.from(head), pngBytes(20_000, 9)]);
      for (const [contentType, body] of [
        ['multipart/form-data', Buffer.from('no boundary at all')],
        ['multipart/form-data; boundary=b0undary', truncated],
        ['multipart/form-data; boundary=b0undary', Buffer.from('--b0undary\r\nnot a header\r\n\r\n')],
      ] as const) {
        const res = await env.api.post('/api/upload', { key: alice.apiKey, body, headers: { 'content-type': contentType } });
        expect(res.status, contentType).to.equal(400);
        expect(res.body.success).to.equal(false);
      }
      await expectNothingStored(alice);
    });

    it('refuses a multipart body without a file', async () => {
      const res = await upload(env, { key: alice.apiKey, fields: { expiry: '1h' } });
      expect(res.status).to.equal(400);
      expect(res.body.success).to.equal(false);
      expect(res.body.error).to.match(/No file/);
      await expectNothingStored(alice);
    });

    it('refuses two files and keeps neither', async () => {
      const res = await upload(env, {
        key: alice.apiKey,
        bytes: pngBytes(2000),
        extraFiles: [['image', pngBytes(2000, 2), 'b.png']],
      });
      expect(res.status).to.equal(400);
      expect(res.body.success).to.equal(false);
      await expectNothingStored(alice);
    });

    it('refuses a file in another field', async () => {
      const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(), field: 'upload' });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.match(/"file" or "image"/);
      await expectNothingStored(alice);
    });

    it('refuses executables detected from the bytes, whatever the name', async () => {
      const res = await upload(env, { key: alice.apiKey, bytes: elfBytes(), name: 'cat.png' });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.match(/not allowed/);
      await expectNothingStored(alice);
    });

    it('refuses scripts detected from the bytes', async () => {
      const res = await upload(env, { key: alice.apiKey, bytes: Buffer.from('#!/bin/sh\nrm -rf /\n'), name: 'readme.txt' });
      expect(res.status).to.equal(400);
      await expectNothingStored(alice);
    });

    it('refuses an empty file', async () => {
      const res = await upload(env, { key: alice.apiKey, bytes: Buffer.alloc(0) });
      expect(res.status).to.equal(400);
      await expectNothingStored(alice);
    });

    it('refuses an unknown expiry and keeps nothing', async () => {
      const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(), fields: { expiry: 'forever' } });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.match(/expiry/);
      await expectNothingStored(alice);
    });
  });

  describe('401 and anonymous uploads from the website', () => {
    const site = () => env.container.config.siteUrl;
    const cookie = () => `${SITE_SESSION_COOKIE}=${env.container.services.siteSessions.issue()}`;

    it('refuses a request without a key from outside the website', async () => {
      const res = await upload(env, { bytes: pngBytes() });
      expect(res.status).to.equal(401);
      expect(res.body.success).to.equal(false);
      expect(await fileRowsOf(env, null)).to.have.length(0);
    });

    it('refuses the website origin without its visitor cookie, and the cookie from another origin', async () => {
      expect((await upload(env, { bytes: pngBytes(), headers: { origin: site() } })).status).to.equal(401);
      expect((await upload(env, { bytes: pngBytes(), headers: { origin: 'https://evil.example', cookie: cookie() } })).status).to.equal(401);
      expect((await upload(env, { bytes: pngBytes(), headers: { origin: site(), cookie: `${SITE_SESSION_COOKIE}=forged.sig` } })).status).to.equal(401);
    });

    it('accepts an anonymous upload from the website and serves it under /f/', async () => {
      const bytes = pngBytes(900);
      const res = await upload(env, { bytes, json: true, headers: { origin: site(), cookie: cookie() } });
      expect(res.status).to.equal(200);
      expect(res.body.data.url).to.equal(`${site()}/f/${res.body.data.filename}`);
      const served = await getWithHost(res.body.data.url);
      expect(served.status).to.equal(200);
      expect(Buffer.compare(served.body, bytes)).to.equal(0);
      const [row] = (await fileRowsOf(env, null)).filter((r) => r.filename === res.body.data.filename);
      expect(row!.source).to.equal('web');
    });

    it('holds anonymous uploads to the anonymous size limit', async () => {
      const anonymousBefore = (await fileRowsOf(env, null)).length;
      const res = await upload(env, { bytes: pngBytes(30_000), headers: { origin: site(), cookie: cookie() } });
      expect(res.status).to.equal(413);
      expect(await fileRowsOf(env, null)).to.have.length(anonymousBefore);
      expect(await storedObjects(env)).to.deep.equal(refused.objectsBefore());
    });
  });

  describe('403', () => {
    it('refuses an unknown key', async () => {
      const res = await upload(env, { key: 'hfs_nope', bytes: pngBytes() });
      expect(res.status).to.equal(403);
      expect(res.body).to.deep.equal({ success: false, error: 'Invalid API key' });
    });

    it('refuses a banned account', async () => {
      const bob = await env.createAccount();
      await env.container.services.accounts.ban(bob.username, 'spam');
      const res = await upload(env, { key: bob.apiKey, bytes: pngBytes() });
      expect(res.status).to.equal(403);
      expect(res.body.error).to.match(/banned/);
      await expectNothingStored(bob);
    });

    it('refuses a folder key until folder keys exist for the account', async () => {
      const res = await upload(env, { key: `fk_abcdef_${'0'.repeat(32)}`, bytes: pngBytes() });
      expect(res.status).to.equal(403);
    });
  });

  describe('413', () => {
    it('refuses a file over the plan limit while streaming and removes the partial object', async () => {
      const carol = await env.createAccount();
      const res = await upload(env, { key: carol.apiKey, bytes: pngBytes(60_000) });
      expect(res.status).to.equal(413);
      expect(res.body.success).to.equal(false);
      await expectNothingStored(carol);
    });

    it('accepts a file of exactly the limit', async () => {
      const carol = await env.createAccount();
      expect((await upload(env, { key: carol.apiKey, bytes: pngBytes(50_000) })).status).to.equal(200);
    });
  });
});

describe('POST /api/upload: quotas, concurrency and storage failures', () => {
  it('answers 429 with retryAfter (seconds to the next UTC day) past the daily limit', async () => {
    const env = await createTestEnv({ env: { PLAN_FREE_DAILY_LIMIT: '2' } });
    try {
      const alice = await env.createAccount();
      for (let i = 0; i < 2; i++) expect((await upload(env, { key: alice.apiKey, bytes: pngBytes(100, i) })).status).to.equal(200);
      const res = await upload(env, { key: alice.apiKey, bytes: pngBytes() });
      expect(res.status).to.equal(429);
      expect(res.body.success).to.equal(false);
      expect(res.body.retryAfter).to.be.closeTo(secondsUntilNextUtcDay(), 5);
      expect(res.headers.get('retry-after')).to.equal(String(res.body.retryAfter));
      expect(await fileRowsOf(env, alice.id)).to.have.length(2);
    } finally {
      await env.close();
    }
  });

  it('accepts exactly the daily limit out of many parallel uploads', async () => {
    const env = await createTestEnv({ env: { PLAN_FREE_DAILY_LIMIT: '5' } });
    try {
      const alice = await env.createAccount();
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, i) => upload(env, { key: alice.apiKey, bytes: pngBytes(2000, i) })),
      );
      expect(results.filter((r) => r.status === 200)).to.have.length(5);
      const refusals = results.filter((r) => r.status !== 200);
      expect(new Set(refusals.map((r) => `${r.status} ${r.body.error}`))).to.deep.equal(new Set(['429 Daily upload limit reached']));
      expect(refusals.every((r) => r.body.retryAfter === Number(r.headers.get('retry-after')) && r.body.retryAfter >= 1)).to.equal(true);
      expect(await fileRowsOf(env, alice.id)).to.have.length(5);
      expect(await env.container.services.accounts.uploadsToday(alice.id)).to.equal(5);
      expect(await storageUsedBy(env, alice.id)).to.equal(5 * 2000);
      expect(await storedObjects(env)).to.have.length(5);
    } finally {
      await env.close();
    }
  });

  it('answers 403 when the Free storage is full, and never lets parallel uploads pass it', async () => {
    const env = await createTestEnv({ env: { PLAN_FREE_STORAGE_LIMIT: '10000' } });
    try {
      const alice = await env.createAccount();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => upload(env, { key: alice.apiKey, bytes: pngBytes(3000, i) })),
      );
      expect(results.filter((r) => r.status === 200)).to.have.length(3);
      const refusals = results.filter((r) => r.status !== 200);
      expect(new Set(refusals.map((r) => `${r.status} ${r.body.error}`))).to.deep.equal(new Set(['403 Storage limit reached: delete files or upgrade the plan']));
      expect(await storageUsedBy(env, alice.id)).to.equal(9000);
      expect(await storedObjects(env)).to.have.length(3);
      const full = await upload(env, { key: alice.apiKey, bytes: pngBytes(1500) });
      expect(full.status).to.equal(403);
      expect(full.body.error).to.match(/Storage limit/);
    } finally {
      await env.close();
    }
  });

  it('answers 429 past the per-key rate limit', async () => {
    const env = await createTestEnv({ env: { RATE_LIMIT_UPLOADS_PER_MINUTE: '3' } });
    try {
      const alice = await env.createAccount();
      for (let i = 0; i < 3; i++) expect((await upload(env, { key: alice.apiKey, bytes: pngBytes(100, i) })).status).to.equal(200);
      const res = await upload(env, { key: alice.apiKey, bytes: pngBytes() });
      expect(res.status).to.equal(429);
      expect(res.body.retryAfter).to.be.within(1, 60);
      expect(res.headers.get('retry-after')).to.equal(String(res.body.retryAfter));
      const bob = await env.createAccount();
      expect((await upload(env, { key: bob.apiKey, bytes: pngBytes() })).status).to.equal(200);
    } finally {
      await env.close();
    }
  });

  it('answers 429 past the per-IP rate limit of anonymous website uploads', async () => {
    const env = await createTestEnv({ env: { RATE_LIMIT_ANONYMOUS_UPLOADS_PER_MINUTE: '2' } });
    try {
      const site = env.container.config.siteUrl;
      const headers = () => ({ origin: site, cookie: `${SITE_SESSION_COOKIE}=${env.container.services.siteSessions.issue()}` });
      for (let i = 0; i < 2; i++) expect((await upload(env, { bytes: pngBytes(100, i), headers: headers() })).status).to.equal(200);
      // A new visitor cookie does not reset it: the limit is on the address.
      const res = await upload(env, { bytes: pngBytes(), headers: headers() });
      expect(res.status).to.equal(429);
      expect(res.body.retryAfter).to.be.within(1, 60);
      expect(await fileRowsOf(env, null)).to.have.length(2);
      const alice = await env.createAccount();
      expect((await upload(env, { key: alice.apiKey, bytes: pngBytes() })).status).to.equal(200);
    } finally {
      await env.close();
    }
  });

  it('answers 502 when storage is unavailable, with no row and no charge', async () => {
    // A real S3 client against an endpoint where nothing listens.
    const env = await createTestEnv({
      env: { STORAGE_DRIVER: 's3', S3_BUCKET: 'gone', S3_ENDPOINT: 'http://127.0.0.1:9', S3_FORCE_PATH_STYLE: 'true', S3_ACCESS_KEY_ID: 'x', S3_SECRET_ACCESS_KEY: 'y' },
    });
    try {
      const alice = await env.createAccount();
      const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(2000) });
      expect(res.status).to.equal(502);
      expect(res.body.success).to.equal(false);
      expect(await fileRowsOf(env, alice.id)).to.have.length(0);
      expect(await storageUsedBy(env, alice.id)).to.equal(0);
      expect(await env.container.services.accounts.uploadsToday(alice.id)).to.equal(0);
    } finally {
      await env.close();
    }
  });
});
