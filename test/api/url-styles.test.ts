import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { files } from '../../shared/db/schema.js';
import { pngBytes } from '../helpers/media.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { getWithHost, upload } from '../helpers/uploads.js';

describe('URL styles and how files are served', () => {
  let env: TestEnv;
  let site: URL;
  before(async () => {
    env = await createTestEnv({ env: { PRIVATE_LINK_TTL_SECONDS: '2' } });
    site = new URL(env.container.config.siteUrl);
  });
  after(() => env.close());

  describe('GET/POST /api/user/subdomain', () => {
    it('reports the settings, subdomain by default', async () => {
      const alice = await env.createAccount();
      const res = await env.api.get('/api/user/subdomain', { key: alice.apiKey });
      expect(res.status).to.equal(200);
      expect(res.body.data).to.deep.equal({
        format: 'subdomain',
        subdomainUrl: `${site.protocol}//${alice.username}.${site.host}`,
        standardUrl: `${site.origin}/u/${alice.username}`,
        customDomainActive: false,
        customDomainUrl: null,
      });
    });

    it('switches new uploads to short URLs and leaves existing links as they were', async () => {
      const alice = await env.createAccount();
      const before = (await upload(env, { key: alice.apiKey, bytes: pngBytes(300), json: true })).body.data.url;
      const res = await env.api.post('/api/user/subdomain', { key: alice.apiKey, json: { format: 'short' } });
      expect(res.status).to.equal(200);
      expect(res.body.data.format).to.equal('short');
      expect(res.body.data.message).to.be.a('string');
      const after = (await upload(env, { key: alice.apiKey, bytes: pngBytes(300, 1), json: true })).body.data.url;
      expect(after).to.match(new RegExp(`^${site.origin}/s/[A-Za-z0-9]{7}$`));
      const dashboard = await env.api.get('/api/user/dashboard', { key: alice.apiKey });
      expect(dashboard.body.data.uploads.map((u: { url: string }) => u.url)).to.have.members([before, after]);
      expect((await getWithHost(before)).status).to.equal(200);
      expect((await getWithHost(after)).status).to.equal(200);
    });

    it('refuses custom without Pro (403) and without a verified domain (400), and unknown formats (400)', async () => {
      const free = await env.createAccount();
      const pro = await env.createAccount({ plan: 'pro' });
      expect((await env.api.post('/api/user/subdomain', { key: free.apiKey, json: { format: 'custom' } })).status).to.equal(403);
      expect((await env.api.post('/api/user/subdomain', { key: pro.apiKey, json: { format: 'custom' } })).status).to.equal(400);
      expect((await env.api.post('/api/user/subdomain', { key: pro.apiKey, json: { format: 'fancy' } })).status).to.equal(400);
      expect((await env.api.get('/api/user/subdomain', { key: pro.apiKey })).body.data.format).to.equal('subdomain');
    });
  });

  describe('each style serves the right file for the right host', () => {
    it('serves subdomain, standard and short URLs of the same file, and 404 under another name', async () => {
      const alice = await env.createAccount();
      const bob = await env.createAccount();
      const bytes = pngBytes(1234, 5);
      const { filename } = (await upload(env, { key: alice.apiKey, bytes, json: true })).body.data;
      const [row] = await env.container.db.select().from(files).where(eq(files.filename, filename));
      const urls = [
        `${site.protocol}//${alice.username}.${site.host}/${filename}`,
        `${site.origin}/u/${alice.username}/${filename}`,
        `${site.origin}/s/${row!.shortCode}`,
      ];
      for (const url of urls) {
        const res = await getWithHost(url);
        expect(res.status, url).to.equal(200);
        expect(res.body.equals(bytes)).to.equal(true);
      }
      expect((await getWithHost(`${site.protocol}//${bob.username}.${site.host}/${filename}`)).status).to.equal(404);
      expect((await getWithHost(`${site.origin}/u/${bob.username}/${filename}`)).status).to.equal(404);
      expect((await getWithHost(`${site.protocol}//nobody.${site.host}/${filename}`)).status).to.equal(404);
    });
  });

  describe('active content', () => {
    it('serves SVG so that no script can run: sandboxing CSP and nosniff', async () => {
      const alice = await env.createAccount();
      const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>');
      const res = await upload(env, { key: alice.apiKey, bytes: svg, name: 'x.svg', json: true });
      expect(res.body.data.mimeType).to.equal('image/svg+xml');
      const served = await getWithHost(res.body.data.url);
      expect(served.headers['content-type']).to.equal('image/svg+xml');
      expect(served.headers['content-security-policy']).to.match(/(^|; )sandbox(;|$)/).and.match(/default-src 'none'/);
      expect(served.headers['x-content-type-options']).to.equal('nosniff');
    });

    it('serves HTML as a sandboxed download, never as a page', async () => {
      const alice = await env.createAccount();
      const html = Buffer.from('<!DOCTYPE html><html><script>alert(1)</script></html>');
      const res = await upload(env, { key: alice.apiKey, bytes: html, name: 'page.html', json: true });
      const served = await getWithHost(res.body.data.url);
      expect(served.headers['content-type']).to.match(/^text\/html/);
      expect(served.headers['content-disposition']).to.match(/^attachment/);
      expect(served.headers['content-security-policy']).to.match(/sandbox/);
    });
  });

  describe('private files', () => {
    it('are served only with an unexpired signature, and never cached publicly', async () => {
      const alice = await env.createAccount();
      const { filename, url } = (await upload(env, { key: alice.apiKey, bytes: pngBytes(800), json: true })).body.data;
      const res = await env.api.patch(`/api/user/images/${filename}/privacy`, { key: alice.apiKey, json: { isPrivate: true } });
      expect(res.status).to.equal(200);
      expect(res.body.data.isPrivate).to.equal(true);
      const signed = res.body.data.url as string;
      expect(signed.startsWith(`${url}?expires=`)).to.equal(true);

      expect((await getWithHost(url)).status).to.equal(404);
      const ok = await getWithHost(signed);
      expect(ok.status).to.equal(200);
      expect(ok.headers['cache-control']).to.equal('private, no-store');
      const tampered = signed.replace(/signature=./, (m) => (m.endsWith('A') ? m.slice(0, -1) + 'B' : m.slice(0, -1) + 'A'));
      expect((await getWithHost(tampered)).status).to.equal(404);

      const listed = await env.api.get('/api/user/dashboard', { key: alice.apiKey });
      expect(listed.body.data.uploads[0].isPrivate).to.equal(true);
      expect(listed.body.data.uploads[0].url).to.match(/\?expires=\d+&signature=/);

      await new Promise((r) => setTimeout(r, 2500));
      expect((await getWithHost(signed)).status).to.equal(404);
    });

    it('become public again', async () => {
      const alice = await env.createAccount();
      const { filename, url } = (await upload(env, { key: alice.apiKey, bytes: pngBytes(800), json: true })).body.data;
      await env.api.patch(`/api/user/images/${filename}/privacy`, { key: alice.apiKey, json: { isPrivate: true } });
      const res = await env.api.patch(`/api/user/images/${filename}/privacy`, { key: alice.apiKey, json: { isPrivate: false } });
      expect(res.body.data.url).to.equal(url);
      expect((await getWithHost(url)).status).to.equal(200);
    });
  });
});
