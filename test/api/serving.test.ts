import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { accounts } from '../../shared/db/schema.js';
import { pngBytes } from '../helpers/media.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { getWithHost, upload } from '../helpers/uploads.js';

describe('serving hosted files', () => {
  let env: TestEnv;
  let alice: { id: string; username: string; apiKey: string };
  let bytes: Buffer;
  let filename: string;
  let site: string;

  before(async () => {
    env = await createTestEnv();
    site = env.container.config.siteUrl;
    alice = await env.createAccount();
    bytes = pngBytes(10_000, 7);
    const res = await upload(env, { key: alice.apiKey, bytes, json: true });
    filename = res.body.data.filename;
  });
  after(() => env.close());

  it('serves /u/{username}/{filename} with type, length, ETag and Last-Modified', async () => {
    const res = await getWithHost(`${site}/u/${alice.username}/${filename}`);
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('image/png');
    expect(res.headers['content-length']).to.equal('10000');
    expect(res.headers.etag).to.match(/^"[0-9a-f-]{36}"$/);
    expect(new Date(String(res.headers['last-modified'])).getTime()).to.be.closeTo(Date.now(), 120_000);
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(Buffer.compare(res.body, bytes)).to.equal(0);
  });

  it('serves the personal subdomain by Host, and nothing else there', async () => {
    const host = `${alice.username}.${new URL(site).host}`;
    const res = await getWithHost(`http://${host}/${filename}`);
    expect(res.status).to.equal(200);
    expect(Buffer.compare(res.body, bytes)).to.equal(0);
    expect((await getWithHost(`http://${host}/api/ping`)).status).to.equal(404);
    expect((await getWithHost(`http://nobody-here.${new URL(site).host}/${filename}`)).status).to.equal(404);
  });

  it('serves the short URL /s/{code}', async () => {
    await env.container.db.update(accounts).set({ urlFormat: 'short' }).where(eq(accounts.id, alice.id));
    const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(400), json: true });
    expect(res.body.data.url).to.match(new RegExp(`^${site}/s/[A-Za-z0-9]{7}$`));
    const served = await getWithHost(res.body.data.url);
    expect(served.status).to.equal(200);
    expect(served.body.length).to.equal(400);
    await env.container.db.update(accounts).set({ urlFormat: 'subdomain' }).where(eq(accounts.id, alice.id));
  });

  it('answers byte ranges with 206, and 416 when unsatisfiable', async () => {
    const url = `${site}/u/${alice.username}/${filename}`;
    const part = await getWithHost(url, { range: 'bytes=100-199' });
    expect(part.status).to.equal(206);
    expect(part.headers['content-range']).to.equal('bytes 100-199/10000');
    expect(part.headers['content-length']).to.equal('100');
    expect(Buffer.compare(part.body, bytes.subarray(100, 200))).to.equal(0);
    const suffix = await getWithHost(url, { range: 'bytes=-10' });
    expect(suffix.status).to.equal(206);
    expect(Buffer.compare(suffix.body, bytes.subarray(9990))).to.equal(0);
    const open = await getWithHost(url, { range: 'bytes=9000-' });
    expect(open.body.length).to.equal(1000);
    const bad = await getWithHost(url, { range: 'bytes=20000-30000' });
    expect(bad.status).to.equal(416);
    expect(bad.headers['content-range']).to.equal('bytes */10000');
    // last < first is an invalid range: ignored, the whole file (RFC 9110 §14.1.1).
    const invalid = await getWithHost(url, { range: 'bytes=5-2' });
    expect(invalid.status).to.equal(200);
    expect(invalid.body.length).to.equal(10000);
  });

  it('answers 304 to a matching If-None-Match and HEAD without a body', async () => {
    const url = `${site}/u/${alice.username}/${filename}`;
    const first = await getWithHost(url);
    const again = await getWithHost(url, { 'if-none-match': String(first.headers.etag) });
    expect(again.status).to.equal(304);
    expect(again.body.length).to.equal(0);
    const etag = String(first.headers.etag);
    for (const header of [{ 'if-none-match': '*' }, { 'if-none-match': `W/${etag}` }, { 'if-none-match': `"other", ${etag}` }]) {
      expect((await getWithHost(url, header)).status, JSON.stringify(header)).to.equal(304);
    }
    expect((await getWithHost(url, { 'if-none-match': '"other"' })).status).to.equal(200);
    const since = String(first.headers['last-modified']);
    expect((await getWithHost(url, { 'if-modified-since': since })).status).to.equal(304);
    expect((await getWithHost(url, { 'if-modified-since': new Date(0).toUTCString() })).status).to.equal(200);
    const head = await getWithHost(url, {}, 'HEAD');
    expect(head.status).to.equal(200);
    expect(head.headers['content-length']).to.equal('10000');
    expect(head.body.length).to.equal(0);
  });

  it('answers 404 on a host that is not the service\'s, and serves by IP address', async () => {
    const siteHost = new URL(site).host;
    const port = new URL(site).port;
    for (const host of [`evil.example:${port}`, `x.${alice.username}.${siteHost}`, `${new URL(site).hostname}.evil.example:${port}`]) {
      const res = await getWithHost(`http://${host}/u/${alice.username}/${filename}`);
      expect(res.status, host).to.equal(404);
      expect((await getWithHost(`http://${host}/api/ping`)).status, host).to.equal(404);
    }
    expect((await getWithHost(`http://127.0.0.1:${port}/u/${alice.username}/${filename}`)).status).to.equal(200);
    // A trailing dot names the same host.
    expect((await getWithHost(`http://${new URL(site).hostname}.:${port}/u/${alice.username}/${filename}`)).status).to.equal(200);
    expect((await getWithHost(`http://${alice.username}.${new URL(site).hostname}.:${port}/${filename}`)).status).to.equal(200);
  });

  it('answers 400, not 500, to a NUL byte in a path segment', async () => {
    for (const path of [`/u/${alice.username}/a%00.png`, '/f/a%00.png', '/s/%00', '/u/%00/x.png']) {
      expect((await getWithHost(`${site}${path}`)).status, path).to.equal(400);
    }
  });

  it('sends XML documents of any kind as downloads', async () => {
    const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(300, 2), json: true });
    const renamed = await env.api.put(`/api/user/images/${res.body.data.filename}/rename`, {
      key: alice.apiKey,
      json: { newFilename: 'feed.rdf' },
    });
    expect(renamed.status).to.equal(200);
    const served = await getWithHost(`${site}/u/${alice.username}/feed.rdf`);
    expect(served.status).to.equal(200);
    expect(served.headers['content-type']).to.equal('application/rdf+xml');
    expect(served.headers['content-disposition']).to.match(/^attachment/);
  });

  it('answers 404 for an unknown user, file, or another account\'s name', async () => {
    const bob = await env.createAccount();
    expect((await getWithHost(`${site}/u/${bob.username}/${filename}`)).status).to.equal(404);
    expect((await getWithHost(`${site}/u/nobody/${filename}`)).status).to.equal(404);
    expect((await getWithHost(`${site}/u/${alice.username}/missing.png`)).status).to.equal(404);
    expect((await getWithHost(`${site}/f/${filename}`)).status).to.equal(404);
    expect((await getWithHost(`${site}/s/zzzzzzz`)).status).to.equal(404);
  });
});

describe('an API host under the site (BASE_URL api.{site})', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ env: { SITE_URL: 'http://example.test', BASE_URL: 'http://files-api.example.test' } });
  });
  after(() => env.close());

  it('is the service, never a user\'s subdomain, and its label cannot be registered', async () => {
    const { port } = new URL(env.web.url);
    const ping = await getWithHost('http://files-api.example.test/api/ping', {}, 'GET', Number(port));
    expect(ping.status).to.equal(200);
    let error: unknown;
    await env.container.services.accounts
      .create({ username: 'files-api', password: 'long-enough-pw' })
      .catch((err: unknown) => (error = err));
    expect(error).to.include({ status: 400 });
    expect((error as Error).message).to.match(/reserved/);
    expect((await env.container.services.accounts.create({ username: 'files-app', password: 'long-enough-pw' })).account.username).to.equal('files-app');
  });
});
