import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import { pngBytes } from '../helpers/media.js';
import { freePort } from '../helpers/ports.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { eq } from 'drizzle-orm';
import { accounts } from '../../shared/db/schema.js';
import { createFolder } from '../helpers/folders.js';
import { fileRowsOf, getWithHost, storageUsedBy, storedObjects } from '../helpers/uploads.js';

/** A remote web server of our own on loopback, answering each path the way a test needs. */
async function startRemote(port: number): Promise<Server> {
  const image = pngBytes(4000, 9);
  const server = createServer((req, res) => {
    switch (req.url) {
      case '/photos/cat.png':
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': image.length });
        return res.end(image);
      case '/page':
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html><body>hi</body></html>');
      case '/liar.png':
        // The header says image, the bytes say otherwise.
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end('<html><script>alert(1)</script></html>');
      case '/big.png':
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': 60_000 });
        return res.end(pngBytes(60_000));
      case '/chunked-big.png': {
        // No Content-Length at all: only counting while downloading can catch it.
        res.writeHead(200, { 'content-type': 'image/png' });
        const body = pngBytes(60_000);
        for (let i = 0; i < body.length; i += 8192) res.write(body.subarray(i, i + 8192));
        return res.end();
      }
      case '/slow.png': {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.write(pngBytes(5000));
        const timer = setInterval(() => res.write(Buffer.alloc(10)), 200);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case '/cut-short.png':
        // Announces more than it sends, then hangs up.
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': 20_000 });
        res.write(pngBytes(5000, 4));
        setTimeout(() => res.socket?.destroy(), 50);
        return;
      case '/missing.png':
        res.writeHead(404);
        return res.end();
      case '/to-cat':
        res.writeHead(302, { location: '/photos/cat.png' });
        return res.end();
      case '/to-private':
        res.writeHead(302, { location: 'http://10.0.0.1/cat.png' });
        return res.end();
      case '/to-loopback':
        res.writeHead(302, { location: `http://127.0.0.2:${port}/photos/cat.png` });
        return res.end();
      case '/to-metadata':
        res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' });
        return res.end();
      default:
        res.writeHead(404);
        res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

describe('POST /api/upload/url', function () {
  this.timeout(60_000);
  let env: TestEnv;
  let remote: Server;
  let origin: string;
  let alice: { id: string; apiKey: string; username: string };

  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    remote = await startRemote(port);
    env = await createTestEnv({
      workers: true,
      env: { URL_FETCH_ALLOWED_ORIGINS: origin, PLAN_FREE_MAX_FILE_SIZE: '50000', URL_FETCH_TIMEOUT_MS: '1500' },
    });
    alice = await env.createAccount();
  });
  after(async () => {
    await env.close();
    remote.close();
  });

  const fetchUrl = (imageUrl: unknown, extra: Record<string, unknown> = {}, key: string | null = alice.apiKey) =>
    env.api.post('/api/upload/url', { ...(key ? { key } : {}), json: { imageUrl, ...extra } });

  async function expectRefused(res: { status: number; body: { success: boolean; error: string } }, status: number, pattern?: RegExp) {
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    expect(res.body.success).to.equal(false);
    if (pattern) expect(res.body.error).to.match(pattern);
    expect(await fileRowsOf(env, alice.id)).to.have.length(0);
    expect(await storageUsedBy(env, alice.id)).to.equal(0);
  }

  describe('accepted', () => {
    afterEach(async () => {
      const account = (await env.container.repositories.accounts.findById(alice.id))!;
      for (const row of await fileRowsOf(env, alice.id)) await env.container.services.files.deleteOwned(account, row.filename);
    });

    it('stores the image and answers the spec body; the URL works at once', async () => {
      const res = await fetchUrl(`${origin}/photos/cat.png`);
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      expect(res.body.data).to.include({ originalFilename: 'cat.png', mimeType: 'image/png', sizeBytes: 4000, expiry: null });
      const served = await getWithHost(res.body.data.url);
      expect(served.status).to.equal(200);
      expect(Buffer.compare(served.body, pngBytes(4000, 9))).to.equal(0);
      const [row] = await fileRowsOf(env, alice.id);
      expect(row!.source).to.equal('url');
    });

    it('follows a redirect, keeps the given source and expiry', async () => {
      const res = await fetchUrl(`${origin}/to-cat`, { source: 'sharex', expiry: '7d' });
      expect(res.status).to.equal(200);
      expect(res.body.data.expiry).to.equal('7d');
      const [row] = await fileRowsOf(env, alice.id);
      expect(row!.source).to.equal('sharex');
    });
  });

  describe('400', () => {
    it('refuses a missing, malformed or non-http(s) URL', async () => {
      await expectRefused(await fetchUrl(undefined), 400, /imageUrl/);
      await expectRefused(await fetchUrl('not a url'), 400, /imageUrl/);
      await expectRefused(await fetchUrl('ftp://example.com/cat.png'), 400, /imageUrl/);
      await expectRefused(await fetchUrl('file:///etc/passwd'), 400, /imageUrl/);
    });

    it('refuses a source with a NUL character, keeping nothing', async () => {
      await expectRefused(await fetchUrl(`${origin}/photos/cat.png`, { source: 'share\u0000x' }), 400, /NUL/);
      expect(await storedObjects(env)).to.have.length(0);
    });

    it('refuses an unknown expiry', async () => {
      await expectRefused(await fetchUrl(`${origin}/photos/cat.png`, { expiry: 'soon' }), 400, /expiry/);
    });

    it('refuses content that is not an image, by header and by bytes', async () => {
      await expectRefused(await fetchUrl(`${origin}/page`), 400, /not point to an image/);
      await expectRefused(await fetchUrl(`${origin}/liar.png`), 400, /not an image/);
    });

    it('refuses a remote error', async () => {
      await expectRefused(await fetchUrl(`${origin}/missing.png`), 400, /404/);
    });

    it('refuses redirects to private, loopback and metadata addresses', async () => {
      await expectRefused(await fetchUrl(`${origin}/to-private`), 400);
      await expectRefused(await fetchUrl(`${origin}/to-loopback`), 400);
      await expectRefused(await fetchUrl(`${origin}/to-metadata`), 400);
    });

    it('refuses IP-literal and named forms of loopback that are not the allowed test origin', async () => {
      // (Spellings that URL parsing turns into 127.0.0.1 are the allowed origin itself; the test
      // without the allowlist below refuses those.)
      const port = new URL(origin).port;
      for (const url of [
        `http://localhost:${port}/photos/cat.png`,
        `http://[::1]:${port}/photos/cat.png`,
        `http://[::ffff:127.0.0.1]:${port}/photos/cat.png`,
        `http://0.0.0.0:${port}/photos/cat.png`,
      ]) {
        await expectRefused(await fetchUrl(url), 400);
      }
    });

    it('refuses a download slower than the time limit', async () => {
      await expectRefused(await fetchUrl(`${origin}/slow.png`), 400, /longer than/);
    });
  });

  describe('413', () => {
    it('refuses an image over the plan limit announced by Content-Length', async () => {
      await expectRefused(await fetchUrl(`${origin}/big.png`), 413);
    });

    it('refuses an image over the plan limit while downloading when no length is announced', async () => {
      await expectRefused(await fetchUrl(`${origin}/chunked-big.png`), 413);
    });
  });

  describe('a body shorter than its Content-Length', () => {
    it('is a remote error (400), and nothing of it is kept', async () => {
      const objects = await storedObjects(env);
      await expectRefused(await fetchUrl(`${origin}/cut-short.png`), 400);
      expect(await storedObjects(env)).to.deep.equal(objects);
    });
  });

  describe('a job whose answer nobody waits for any more', () => {
    it('stores nothing (502), so a timed-out request never leaves a file behind', async () => {
      const objects = await storedObjects(env);
      const late = env.container.services.urlUploads.fetchAndStore({
        accountId: alice.id,
        folderId: null,
        imageUrl: `${origin}/photos/cat.png`,
        expiry: null,
        source: 'url',
        answerBy: Date.now() - 1,
      });
      let error: unknown;
      await late.catch((err: unknown) => (error = err));
      expect(error).to.include({ status: 502 });
      expect(await fileRowsOf(env, alice.id)).to.have.length(0);
      expect(await storedObjects(env)).to.deep.equal(objects);
    });
  });

  describe('403 and 429 for the account', () => {
    /** Nothing of a refused URL upload may stay with this account. */
    async function expectNothingFor(account: { id: string }) {
      expect(await fileRowsOf(env, account.id)).to.have.length(0);
    }

    it('refuses a banned account', async () => {
      const bob = await env.createAccount();
      await env.container.services.accounts.ban(bob.username, 'abuse');
      const res = await fetchUrl(`${origin}/photos/cat.png`, {}, bob.apiKey);
      expect(res.status).to.equal(403);
      expect(res.body.success).to.equal(false);
      await expectNothingFor(bob);
    });

    it('refuses a folder key once the account is no longer Pro', async () => {
      const carol = await env.createAccount({ plan: 'pro' });
      const folderId = await createFolder(env, carol, 'from-urls');
      const key = (await env.api.post(`/api/user/folders/${folderId}/key`, { key: carol.apiKey })).body.data.apiKey as string;
      const accepted = await fetchUrl(`${origin}/photos/cat.png`, {}, key);
      expect(accepted.status).to.equal(200);
      expect((await fileRowsOf(env, carol.id))[0]!.folderId).to.equal(folderId);
      await env.container.services.accounts.setPlan(carol.username, 'free');
      const refused = await fetchUrl(`${origin}/photos/cat.png`, {}, key);
      expect(refused.status).to.equal(403);
      expect(await fileRowsOf(env, carol.id)).to.have.length(1);
    });

    it('refuses a full Free storage (403) and a spent daily limit (429 with retryAfter), charging nothing', async () => {
      const dave = await env.createAccount();
      await env.container.db.update(accounts).set({ storageUsed: 5 * 1024 ** 3 }).where(eq(accounts.id, dave.id));
      const full = await fetchUrl(`${origin}/photos/cat.png`, {}, dave.apiKey);
      expect(full.status).to.equal(403);
      await expectNothingFor(dave);
      const today = new Date().toISOString().slice(0, 10);
      await env.container.db
        .update(accounts)
        .set({ storageUsed: 0, usageDay: today, usageDayCount: 100 })
        .where(eq(accounts.id, dave.id));
      const spent = await fetchUrl(`${origin}/photos/cat.png`, {}, dave.apiKey);
      expect(spent.status).to.equal(429);
      expect(spent.body.retryAfter).to.be.a('number').greaterThan(0);
      await expectNothingFor(dave);
      expect(await storageUsedBy(env, dave.id)).to.equal(0);
    });
  });

  describe('401 and 403', () => {
    it('needs a key from outside the website', async () => {
      const res = await fetchUrl(`${origin}/photos/cat.png`, {}, null);
      expect(res.status).to.equal(401);
    });

    it('refuses an unknown key', async () => {
      const res = await fetchUrl(`${origin}/photos/cat.png`, {}, 'hfs_unknown');
      expect(res.status).to.equal(403);
    });
  });
});

describe('POST /api/upload/url without the test allowlist', function () {
  this.timeout(30_000);

  it('refuses the loopback server that the allowlist would have let through', async () => {
    const port = await freePort();
    const remote = await startRemote(port);
    const env = await createTestEnv({ workers: true });
    try {
      const alice = await env.createAccount();
      for (const host of ['127.0.0.1', '2130706433', '0x7f.0.0.1', '127.1']) {
        const imageUrl = `http://${host}:${port}/photos/cat.png`;
        const res = await env.api.post('/api/upload/url', { key: alice.apiKey, json: { imageUrl } });
        expect(res.status, imageUrl).to.equal(400);
        expect(res.body.error).to.match(/private|reserved|not allowed|public/i);
      }
      expect(await fileRowsOf(env, alice.id)).to.have.length(0);
    } finally {
      await env.close();
      remote.close();
    }
  });

  it('answers 502 with nothing saved when storing fails', async () => {
    const port = await freePort();
    const remote = await startRemote(port);
    const env = await createTestEnv({
      workers: true,
      env: {
        URL_FETCH_ALLOWED_ORIGINS: `http://127.0.0.1:${port}`,
        STORAGE_DRIVER: 's3',
        S3_BUCKET: 'gone',
        S3_ENDPOINT: 'http://127.0.0.1:9',
        S3_FORCE_PATH_STYLE: 'true',
        S3_ACCESS_KEY_ID: 'x',
        S3_SECRET_ACCESS_KEY: 'y',
      },
    });
    try {
      const alice = await env.createAccount();
      const res = await env.api.post('/api/upload/url', { key: alice.apiKey, json: { imageUrl: `http://127.0.0.1:${port}/photos/cat.png` } });
      expect(res.status).to.equal(502);
      expect(await fileRowsOf(env, alice.id)).to.have.length(0);
      expect(await storageUsedBy(env, alice.id)).to.equal(0);
    } finally {
      await env.close();
      remote.close();
    }
  });
});
