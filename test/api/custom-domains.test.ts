import { expect } from 'chai';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';

describe('custom domains: what is refused before any DNS or ACME work', () => {
  let env: TestEnv;
  before(async () => {
    // A CA that cannot be reached: anything that gets as far as ordering a certificate fails (502).
    env = await createTestEnv({ env: { ACME_DIRECTORY_URL: 'https://127.0.0.1:1/dir' } });
  });
  after(() => env.close());

  it('is Pro only: 403 on every route for a Free account', async () => {
    const free = await env.createAccount();
    const routes: [string, string][] = [['GET', ''], ['POST', ''], ['POST', '/verify'], ['DELETE', '']];
    for (const [method, path] of routes) {
      const res = await env.api.request(method, `/api/user/custom-domain${path}`, { key: free.apiKey, ...(method === 'POST' ? { json: { domain: 'files.example.com' } } : {}) });
      expect(res.status, `${method} ${path}`).to.equal(403);
      expect(res.body).to.deep.equal({ success: false, error: 'Custom domains require a Pro plan' });
    }
  });

  it('shows no domain until one is added, and the CNAME target to use', async () => {
    const pro = await env.createAccount({ plan: 'pro' });
    const res = await env.api.get('/api/user/custom-domain', { key: pro.apiKey });
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal({ customDomain: null, customDomainStatus: 'none', cnameTarget: 'localhost' });
    expect((await env.api.get('/api/auth/me', { key: pro.apiKey })).body.data.user).to.include({ customDomain: null, customDomainStatus: 'none' });
  });

  it('refuses what is not a fully qualified name of someone else (400)', async () => {
    const pro = await env.createAccount({ plan: 'pro' });
    for (const domain of ['', 'localhost', 'intranet', '192.0.2.7', '[2001:db8::1]', 'files.localhost', 'bad_label.example.com', '-x.example.com', `${'a'.repeat(64)}.example.com`, 'example.123', 42]) {
      const res = await env.api.post('/api/user/custom-domain', { key: pro.apiKey, json: { domain } });
      expect(res.status, String(domain)).to.equal(400);
      expect(res.body.success).to.equal(false);
    }
  });

  it('keeps nothing when the certificate authority cannot be reached (502)', async () => {
    const pro = await env.createAccount({ plan: 'pro' });
    const res = await env.api.post('/api/user/custom-domain', { key: pro.apiKey, json: { domain: 'Files.Example.COM.' } });
    expect(res.status).to.equal(502);
    expect(res.body).to.deep.equal({ success: false, error: 'The certificate authority could not be reached; nothing was saved, retry' });
    expect((await env.api.get('/api/user/custom-domain', { key: pro.apiKey })).body.data.customDomain).to.equal(null);
    expect((await env.api.post('/api/user/custom-domain/verify', { key: pro.apiKey })).status).to.equal(404);
    expect((await env.api.delete('/api/user/custom-domain', { key: pro.apiKey })).status).to.equal(404);
  });
});
