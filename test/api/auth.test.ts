import { expect } from 'chai';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';

describe('accounts and API keys', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ env: { API_KEY_REGENERATIONS_PER_MONTH: '2' } });
  });
  after(() => env.close());

  describe('GET /api/ping', () => {
    it('answers without a key', async () => {
      const res = await env.api.get('/api/ping');
      expect(res.status).to.equal(200);
      expect(res.body.message).to.be.a('string');
    });
  });

  describe('GET /api/auth/me', () => {
    it('returns every profile field of the spec', async () => {
      const alice = await env.createAccount({ plan: 'pro' });
      const res = await env.api.get('/api/auth/me', { key: alice.apiKey });
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      const user = res.body.data.user;
      expect(user).to.include({ id: alice.id, username: alice.username, apiKey: alice.apiKey, plan: 'pro', status: 'active' });
      expect(user).to.have.all.keys(
        'id', 'username', 'email', 'apiKey', 'createdAt', 'plan', 'status', 'uploadsFolder', 'limits', 'usage',
        'defaultUploadFolderId', 'features', 'customDomain', 'customDomainStatus',
      );
      expect(new Date(user.createdAt).toISOString()).to.equal(user.createdAt);
      expect(user.limits).to.deep.equal({ dailyLimit: 2000, monthlyStorageLimit: 200 * 1024 ** 3 });
      expect(user.usage).to.have.all.keys('count', 'lastUsed', 'monthlyStorageUsed', 'currentMonth');
      expect(user.usage.count).to.equal(0);
      expect(user.usage.monthlyStorageUsed).to.equal(0);
      expect(user.usage.currentMonth).to.match(/^\d{4}-\d{2}$/);
      expect(user.features).to.deep.equal({ subdomain: true, shortUrl: true, folders: true });
      expect(user.defaultUploadFolderId).to.equal(null);
    });

    it('answers 401 without a key', async () => {
      const res = await env.api.get('/api/auth/me');
      expect(res.status).to.equal(401);
      expect(res.body).to.deep.include({ success: false });
      expect(res.body.error).to.be.a('string');
    });

    it('answers 401 for an unrecognized key', async () => {
      const res = await env.api.get('/api/auth/me', { key: 'hfs_0000000000000000000000000000000000000000000000' });
      expect(res.status).to.equal(401);
      expect(res.body.success).to.equal(false);
    });

    it('never stores the key in clear', async () => {
      const bob = await env.createAccount();
      const row = await env.container.repositories.accounts.findById(bob.id);
      expect(JSON.stringify(row)).not.to.include(bob.apiKey);
    });
  });

  describe('the website session cookie on /api/user', () => {
    // What the dashboard sends: its session cookie, and the Origin every browser adds to a write.
    const createFolder = async (cookie: string, origin?: string) =>
      fetch(`${env.web.url}/api/user/folders`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', ...(origin ? { origin } : {}) },
        body: JSON.stringify({ name: `f${Math.random().toString(36).slice(2, 8)}` }),
      });

    it('reads with the cookie alone, and changes only when the request comes from the site', async () => {
      const user = await env.createAccount();
      const { token } = await env.container.services.sessions.create(user.id, null);
      const cookie = `hfs_session=${token}`;
      const siteOrigin = env.container.config.baseUrl.replace(/\/$/, '');
      expect((await fetch(`${env.web.url}/api/user/folders`, { headers: { cookie } })).status).to.equal(200);
      expect((await createFolder(cookie)).status).to.equal(401);
      const foreign = await createFolder(cookie, 'https://evil.example');
      expect(foreign.status).to.equal(401);
      expect(await foreign.json()).to.deep.equal({ success: false, error: 'Missing x-api-key header' });
      expect((await createFolder(cookie, siteOrigin)).status).to.equal(200);
      expect((await env.api.get('/api/user/folders', { key: user.apiKey })).body.data).to.have.length(1);
    });
  });

  describe('POST /api/user/regenerate-api-key', () => {
    it('issues a new key and refuses the old one on the very next request', async () => {
      const carol = await env.createAccount();
      const res = await env.api.post('/api/user/regenerate-api-key', { key: carol.apiKey });
      expect(res.status).to.equal(200);
      const { apiKey, limits, regenerationInfo } = res.body.data;
      expect(apiKey).to.be.a('string').and.not.equal(carol.apiKey);
      expect(limits).to.have.all.keys('dailyLimit', 'monthlyStorageLimit');
      expect(regenerationInfo.remainingThisMonth).to.equal(1);
      expect(new Date(regenerationInfo.lastRegeneration).getTime()).to.be.closeTo(Date.now(), 60_000);

      expect((await env.api.get('/api/auth/me', { key: carol.apiKey })).status).to.equal(401);
      const me = await env.api.get('/api/auth/me', { key: apiKey });
      expect(me.status).to.equal(200);
      expect(me.body.data.user.apiKey).to.equal(apiKey);
    });

    it('refuses with 429 once the monthly allowance is used', async () => {
      let { apiKey } = await env.createAccount();
      for (let i = 0; i < 2; i++) {
        const res = await env.api.post('/api/user/regenerate-api-key', { key: apiKey });
        expect(res.status).to.equal(200);
        apiKey = res.body.data.apiKey;
      }
      const refused = await env.api.post('/api/user/regenerate-api-key', { key: apiKey });
      expect(refused.status).to.equal(429);
      expect(refused.body.success).to.equal(false);
      expect(refused.body.retryAfter).to.be.a('number').greaterThan(0);
      expect(refused.headers.get('retry-after')).to.equal(String(refused.body.retryAfter));
      expect((await env.api.get('/api/auth/me', { key: apiKey })).status).to.equal(200);
    });

    it('counts concurrent regenerations against the allowance', async () => {
      const dave = await env.createAccount();
      const results = await Promise.all(
        Array.from({ length: 5 }, () => env.api.post('/api/user/regenerate-api-key', { key: dave.apiKey })),
      );
      // After the first rotation the old key is gone, so at most one can succeed with it.
      expect(results.filter((r) => r.status === 200)).to.have.length(1);
      expect(results.filter((r) => r.status !== 200).every((r) => r.status === 401)).to.equal(true);
    });

    it('lets only one of two rotations that authenticated with the same key win', async () => {
      // Both requests were authenticated before either rotated: the second must find its key revoked.
      const erin = await env.createAccount();
      const accounts = env.container.services.accounts;
      const first = await accounts.regenerateApiKey(erin.id, erin.apiKey);
      let error: unknown;
      try {
        await accounts.regenerateApiKey(erin.id, erin.apiKey);
      } catch (err) {
        error = err;
      }
      expect(error).to.include({ status: 401 });
      const me = await env.api.get('/api/auth/me', { key: first.apiKey });
      expect(me.status).to.equal(200);
      expect(first.regenerationInfo.remainingThisMonth).to.equal(1);
      expect(me.body.data.user.apiKey).to.equal(first.apiKey);
    });

    it('needs a key', async () => {
      expect((await env.api.post('/api/user/regenerate-api-key')).status).to.equal(401);
    });
  });
});
