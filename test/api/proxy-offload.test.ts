import { expect } from 'chai';
import { and, eq } from 'drizzle-orm';
import { exampleConfig, hasNginx, startNginx, type RunningNginx } from '../../scripts/lib/nginx.js';
import { files } from '../../shared/db/schema.js';
import { pngBytes } from '../helpers/media.js';
import { freePort } from '../helpers/ports.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { getWithHost, storedObjects, upload } from '../helpers/uploads.js';

// What nginx must send as the service has it (X-Request-Id and Date differ per answer).
const FILE_HEADERS = ['etag', 'last-modified', 'content-type', 'content-security-policy', 'x-content-type-options', 'cache-control'];
const PREFIX = '/_hfs_files/';
const nginxMissing = hasNginx() ? undefined : 'nginx is not installed; Debian: apt-get install nginx';

describe('hosted files sent by a front proxy (FILE_OFFLOAD=x-accel-redirect)', () => {
  let env: TestEnv;
  let alice: { id: string; username: string; apiKey: string };
  let site: string;
  let bytes: Buffer;
  let filename: string;
  let fileUrl: string;

  const objectKeyOf = async (name: string) => {
    const [row] = await env.container.db.select().from(files).where(and(eq(files.accountId, alice.id), eq(files.filename, name)));
    return row!.objectKey;
  };
  const uploaded = async (size: number, seed: number) => (await upload(env, { key: alice.apiKey, bytes: pngBytes(size, seed), json: true })).body.data;

  before(async () => {
    env = await createTestEnv({ env: { FILE_OFFLOAD: 'x-accel-redirect', TRUST_PROXY: 'true' } });
    site = env.container.config.siteUrl;
    alice = await env.createAccount();
    bytes = pngBytes(10_000, 3);
    filename = (await upload(env, { key: alice.apiKey, bytes, json: true })).body.data.filename;
    fileUrl = `${site}/u/${alice.username}/${filename}`;
  });
  after(() => env.close());

  describe('directly against the service', () => {
    it('answers a hosted-file GET with the file\'s headers and X-Accel-Redirect to its object, without the bytes', async () => {
      const res = await getWithHost(fileUrl);
      expect(res.status).to.equal(200);
      expect(res.headers['x-accel-redirect']).to.equal(`${PREFIX}${await objectKeyOf(filename)}`);
      expect(res.body.length).to.equal(0);
      expect(res.headers['content-type']).to.equal('image/png');
      expect(res.headers.etag).to.match(/^"[0-9a-f-]{36}"$/);
      expect(res.headers['x-content-type-options']).to.equal('nosniff');
      expect(res.headers['content-security-policy']).to.match(/sandbox/);
    });

    it('sends the bytes itself, without the header, when FILE_OFFLOAD is not set', async () => {
      const plain = await createTestEnv();
      try {
        const bob = await plain.createAccount();
        const name = (await upload(plain, { key: bob.apiKey, bytes, json: true })).body.data.filename;
        const res = await getWithHost(`${plain.container.config.siteUrl}/u/${bob.username}/${name}`);
        expect(res.status).to.equal(200);
        expect(res.headers).not.to.have.property('x-accel-redirect');
        expect(Buffer.compare(res.body, bytes)).to.equal(0);
      } finally {
        await plain.close();
      }
    });

    it('answers 304 and 416 itself, without the header', async () => {
      const first = await getWithHost(fileUrl);
      const notModified = await getWithHost(fileUrl, { 'if-none-match': String(first.headers.etag) });
      expect(notModified.status).to.equal(304);
      expect(notModified.headers).not.to.have.property('x-accel-redirect');
      const unsatisfiable = await getWithHost(fileUrl, { range: 'bytes=20000-30000' });
      expect(unsatisfiable.status).to.equal(416);
      expect(unsatisfiable.headers['content-range']).to.equal('bytes */10000');
      expect(unsatisfiable.headers).not.to.have.property('x-accel-redirect');
    });

    it('answers 404 without the header for an unsigned private link, a deleted file and an unknown name', async () => {
      const secret = await uploaded(800, 4);
      expect((await env.api.patch(`/api/user/images/${secret.filename}/privacy`, { key: alice.apiKey, json: { isPrivate: true } })).status).to.equal(200);
      const gone = await uploaded(900, 5);
      expect((await env.api.delete(`/api/user/images/${gone.filename}`, { key: alice.apiKey })).status).to.equal(200);
      for (const name of [secret.filename, gone.filename, 'missing.png']) {
        const res = await getWithHost(`${site}/u/${alice.username}/${name}`);
        expect(res.status, name).to.equal(404);
        expect(res.headers, name).not.to.have.property('x-accel-redirect');
      }
    });

    it('answers 451 without the header for a file blocked by moderation', async () => {
      const blocked = await uploaded(700, 6);
      // Set before anything looked the file up, so no process has it cached.
      await env.container.db.update(files).set({ quarantined: true }).where(eq(files.objectKey, await objectKeyOf(blocked.filename)));
      const res = await getWithHost(`${site}/u/${alice.username}/${blocked.filename}`);
      expect(res.status).to.equal(451);
      expect(res.headers).not.to.have.property('x-accel-redirect');
    });
  });

  (nginxMissing ? describe.skip : describe)(`through nginx with docs/nginx.example.conf${nginxMissing ? ` (skipped: ${nginxMissing})` : ''}`, () => {
    let nginx: RunningNginx;
    let nginxPort: number;

    /** A request to nginx with the Host of `url`; no answer may carry X-Accel-Redirect to the client. */
    const viaNginx = async (url: string, headers: Record<string, string> = {}, method = 'GET') => {
      const res = await getWithHost(url, headers, method, nginxPort);
      expect(res.headers, `${method} ${url}`).not.to.have.property('x-accel-redirect');
      return res;
    };

    before(async () => {
      nginxPort = await freePort();
      const http = await exampleConfig({ listenPort: nginxPort, upstreamPorts: [Number(new URL(env.web.url).port)], dataDir: env.dataDir });
      nginx = await startNginx({ port: nginxPort, http });
    });
    after(() => nginx?.stop());

    it('sends the bytes with the service\'s own ETag, Last-Modified, Content-Type, CSP, nosniff and Cache-Control', async () => {
      const own = await getWithHost(fileUrl);
      const res = await viaNginx(fileUrl);
      expect(res.status).to.equal(200);
      expect(Buffer.compare(res.body, bytes)).to.equal(0);
      expect(res.headers['content-length']).to.equal('10000');
      for (const name of FILE_HEADERS) expect(res.headers[name], name).to.equal(own.headers[name]);
      // nginx adds its own Accept-Ranges after an X-Accel-Redirect, beside the service's copy.
      expect(String(res.headers['accept-ranges']).split(/,\s*/)).to.include('bytes');
    });

    it('serves the personal subdomain by Host, and HEAD without a body', async () => {
      const host = `${alice.username}.${new URL(site).host}`;
      const res = await viaNginx(`http://${host}/${filename}`);
      expect(res.status).to.equal(200);
      expect(Buffer.compare(res.body, bytes)).to.equal(0);
      const head = await viaNginx(fileUrl, {}, 'HEAD');
      expect(head.status).to.equal(200);
      expect(head.headers['content-length']).to.equal('10000');
      expect(head.body.length).to.equal(0);
    });

    it('keeps the service\'s Content-Disposition on documents', async () => {
      const doc = await uploaded(300, 2);
      expect((await env.api.put(`/api/user/images/${doc.filename}/rename`, { key: alice.apiKey, json: { newFilename: 'feed.rdf' } })).status).to.equal(200);
      const url = `${site}/u/${alice.username}/feed.rdf`;
      const own = await getWithHost(url);
      const res = await viaNginx(url);
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('application/rdf+xml');
      expect(res.headers['content-disposition']).to.match(/^attachment/);
      expect(res.headers['content-disposition']).to.equal(own.headers['content-disposition']);
    });

    it('answers a range with 206 from the file, and If-Range by the service\'s ETag', async () => {
      const etag = String((await getWithHost(fileUrl)).headers.etag);
      const part = await viaNginx(fileUrl, { range: 'bytes=100-199' });
      expect(part.status).to.equal(206);
      expect(part.headers['content-range']).to.equal('bytes 100-199/10000');
      expect(part.headers.etag).to.equal(etag);
      expect(Buffer.compare(part.body, bytes.subarray(100, 200))).to.equal(0);
      const suffix = await viaNginx(fileUrl, { range: 'bytes=-10' });
      expect(Buffer.compare(suffix.body, bytes.subarray(9990))).to.equal(0);
      expect((await viaNginx(fileUrl, { range: 'bytes=100-199', 'if-range': etag })).status).to.equal(206);
      const changed = await viaNginx(fileUrl, { range: 'bytes=100-199', 'if-range': '"other"' });
      expect(changed.status).to.equal(200);
      expect(changed.body.length).to.equal(10000);
    });

    it('answers 304 to the service\'s ETag, and 200 to another', async () => {
      const etag = String((await getWithHost(fileUrl)).headers.etag);
      const again = await viaNginx(fileUrl, { 'if-none-match': etag });
      expect(again.status).to.equal(304);
      expect(again.body.length).to.equal(0);
      expect(again.headers.etag).to.equal(etag);
      expect((await viaNginx(fileUrl, { 'if-none-match': '"other"' })).status).to.equal(200);
    });

    it('answers 404 to an unsigned private link and serves the signed one privately', async () => {
      const secret = await uploaded(800, 7);
      const signed = (await env.api.patch(`/api/user/images/${secret.filename}/privacy`, { key: alice.apiKey, json: { isPrivate: true } })).body.data.url as string;
      expect((await viaNginx(`${site}/u/${alice.username}/${secret.filename}`)).status).to.equal(404);
      expect((await viaNginx(signed.slice(0, signed.indexOf('?')))).status).to.equal(404);
      const ok = await viaNginx(signed);
      expect(ok.status).to.equal(200);
      expect(ok.body.length).to.equal(800);
      expect(ok.headers['cache-control']).to.equal('private, no-store');
    });

    it('answers 404 for a deleted file while its object is still on disk', async () => {
      const gone = await uploaded(900, 8);
      const objectKey = await objectKeyOf(gone.filename);
      const url = `${site}/u/${alice.username}/${gone.filename}`;
      expect((await viaNginx(url)).status).to.equal(200);
      expect((await env.api.delete(`/api/user/images/${gone.filename}`, { key: alice.apiKey })).status).to.equal(200);
      expect(await storedObjects(env)).to.include(objectKey); // no workers here: the object stays
      expect((await viaNginx(url)).status).to.equal(404);
    });

    it('answers 404 to a client asking for the internal location itself', async () => {
      const objectKey = await objectKeyOf(filename);
      const res = await viaNginx(`${site}${PREFIX}${objectKey}`);
      expect(res.status).to.equal(404);
      expect(res.body.includes(bytes.subarray(0, 64))).to.equal(false);
    });

    it('never lets X-Accel-Redirect reach the client, whatever the answer', async () => {
      const etag = String((await getWithHost(fileUrl)).headers.etag);
      const answers = [
        await viaNginx(fileUrl),
        await viaNginx(fileUrl, {}, 'HEAD'),
        await viaNginx(fileUrl, { range: 'bytes=0-9' }),
        await viaNginx(fileUrl, { 'if-none-match': etag }),
        await viaNginx(fileUrl, { range: 'bytes=20000-30000' }),
        await viaNginx(`${site}/u/${alice.username}/missing.png`),
      ];
      expect(answers.map((r) => r.status)).to.deep.equal([200, 200, 206, 304, 416, 404]);
    });
  });
});
