import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { accessTokens } from '../../shared/db/integrations.schema.js';
import { ApiClient } from '../helpers/api-client.js';
import { needsPostgres, testRedisUrl } from '../helpers/engines.js';
import { pngBytes } from '../helpers/media.js';
import { freePort } from '../helpers/ports.js';
import { startWeb } from '../helpers/processes.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, upload } from '../helpers/uploads.js';

type Account = { id: string; username: string; apiKey: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('personal access tokens', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv();
  });
  after(() => env.close());

  async function mint(account: Account, scopes: string[], extra: Record<string, unknown> = {}) {
    const res = await env.api.post('/api/user/tokens', { key: account.apiKey, json: { name: `token of ${scopes.length}`, scopes, ...extra } });
    expect(res.status, res.text).to.equal(200);
    return res.body.data as { id: string; token: string; scopes: string[]; name: string; createdAt: string; expiresAt: string | null; lastUsedAt: string | null };
  }

  const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

  describe('POST /api/user/tokens', () => {
    it('answers the token once, with its secret, and stores only its hash', async () => {
      const account = await env.createAccount();
      const res = await env.api.post('/api/user/tokens', { key: account.apiKey, json: { name: 'CI uploads', scopes: ['files:write', 'account:read'], expiresIn: 3600 } });
      expect(res.status, res.text).to.equal(200);
      const data = res.body.data;
      expect(res.body.success).to.equal(true);
      expect(Object.keys(data).sort()).to.deep.equal(['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'scopes', 'token']);
      expect(data.id).to.match(UUID);
      expect(data.name).to.equal('CI uploads');
      expect(data.token).to.match(/^hfs_pat_[0-9A-Za-z]{43}$/);
      // Scopes come back in the spec's order, each once.
      expect(data.scopes).to.deep.equal(['account:read', 'files:write']);
      expect(data.lastUsedAt).to.equal(null);
      const lifetime = Date.parse(data.expiresAt) - Date.parse(data.createdAt);
      expect(lifetime).to.be.within(3590_000, 3610_000);

      const [row] = await env.container.db.select().from(accessTokens).where(eq(accessTokens.id, data.id));
      expect(row!.tokenHash).to.have.length(64).and.not.include(data.token.slice(8));
      expect(JSON.stringify(row)).not.to.include(data.token);
    });

    it('refuses bad names, scopes and lifetimes with 400', async () => {
      const account = await env.createAccount();
      for (const json of [
        { name: '', scopes: ['files:read'] },
        { name: 'x'.repeat(65), scopes: ['files:read'] },
        { name: 'ok', scopes: [] },
        { name: 'ok', scopes: ['files:admin'] },
        { name: 'ok' },
        { name: 'ok', scopes: ['files:read'], expiresIn: 'soon' },
        { name: 'ok', scopes: ['files:read'], expiresIn: 0 },
      ]) {
        const res = await env.api.post('/api/user/tokens', { key: account.apiKey, json });
        expect(res.status, JSON.stringify(json)).to.equal(400);
        expect(res.body.success).to.equal(false);
        expect(res.body.error).to.be.a('string');
      }
      expect(await env.container.db.select().from(accessTokens).where(eq(accessTokens.accountId, account.id))).to.have.length(0);
    });

    it('holds at most 50 tokens per account', async () => {
      const account = await env.createAccount();
      await Promise.all(Array.from({ length: 52 }, (_, i) => env.api.post('/api/user/tokens', { key: account.apiKey, json: { name: `t${i}`, scopes: ['files:read'] } })));
      const rows = await env.container.db.select().from(accessTokens).where(eq(accessTokens.accountId, account.id));
      expect(rows).to.have.length(50);
      const more = await env.api.post('/api/user/tokens', { key: account.apiKey, json: { name: 'one more', scopes: ['files:read'] } });
      expect(more.status).to.equal(400);
      expect(more.body.error).to.include('50');
    });
  });

  describe('GET and DELETE /api/user/tokens', () => {
    it('lists newest first without secrets; another account sees none and cannot revoke them', async () => {
      const account = await env.createAccount();
      const other = await env.createAccount();
      const first = await mint(account, ['files:read']);
      const second = await mint(account, ['files:write']);
      const list = await env.api.get('/api/user/tokens', { key: account.apiKey });
      expect(list.status).to.equal(200);
      expect(list.body.data.map((t: { id: string }) => t.id)).to.deep.equal([second.id, first.id]);
      expect(list.text).not.to.include('hfs_pat_');
      for (const token of list.body.data) expect(token).not.to.have.property('token');

      expect((await env.api.get('/api/user/tokens', { key: other.apiKey })).body.data).to.deep.equal([]);
      expect((await env.api.delete(`/api/user/tokens/${first.id}`, { key: other.apiKey })).status).to.equal(404);
      expect((await env.api.delete('/api/user/tokens/not-an-id', { key: account.apiKey })).status).to.equal(404);

      const revoked = await env.api.delete(`/api/user/tokens/${first.id}`, { key: account.apiKey });
      expect(revoked.status).to.equal(200);
      expect(revoked.body.success).to.equal(true);
      expect((await env.api.get('/api/auth/me', bearer(first.token))).status).to.equal(401);
      expect((await env.api.get('/api/user/tokens', { key: account.apiKey })).body.data.map((t: { id: string }) => t.id)).to.deep.equal([second.id]);
    });
  });

  describe('what a token may do', () => {
    it('a files:write-only token uploads (either header) but gets 403 requiredScope on the dashboard and on delete', async () => {
      const account = await env.createAccount();
      const { token } = await mint(account, ['files:write']);
      const viaKey = await upload(env, { key: token, bytes: pngBytes(300, 1), json: true });
      expect(viaKey.status, viaKey.text).to.equal(200);
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(pngBytes(300, 2))]), 'two.png');
      const viaBearer = await env.api.post('/api/upload?format=json', { body: form, headers: { authorization: `Bearer ${token}` } });
      expect(viaBearer.status, viaBearer.text).to.equal(200);
      // Filed as the primary key would: the account's, source api.
      const rows = await fileRowsOf(env, account.id);
      expect(rows).to.have.length(2);
      expect(rows.map((r) => r.source)).to.deep.equal(['api', 'api']);

      const dashboard = await env.api.get('/api/user/dashboard', { key: token });
      expect(dashboard.status).to.equal(403);
      expect(dashboard.body).to.deep.include({ success: false, requiredScope: 'files:read' });
      expect(dashboard.body.error).to.be.a('string');

      const filename = viaKey.body.data.filename as string;
      const deleted = await env.api.delete(`/api/user/images/${filename}`, { key: token });
      expect(deleted.status).to.equal(403);
      expect(deleted.body.requiredScope).to.equal('files:delete');
      const deleteLink = await env.api.get(`/api/delete/${filename}?apiKey=${token}`);
      expect(deleteLink.status).to.equal(403);
      expect(deleteLink.body.requiredScope).to.equal('files:delete');
      expect(await fileRowsOf(env, account.id)).to.have.length(2);

      // Renaming is files:write.
      const renamed = await env.api.put(`/api/user/images/${filename}/rename`, { key: token, json: { newFilename: 'renamed.png' } });
      expect(renamed.status, renamed.text).to.equal(200);
    });

    it('each route takes the scope it names, and the primary key still takes them all', async () => {
      const account = await env.createAccount();
      const reader = await mint(account, ['files:read', 'folders:read']);
      const deleter = await mint(account, ['files:delete']);
      const folders = await mint(account, ['folders:write']);
      const uploaded = await upload(env, { key: account.apiKey, bytes: pngBytes(300, 3), json: true });
      const filename = uploaded.body.data.filename as string;

      expect((await env.api.get('/api/user/dashboard', { key: reader.token })).status).to.equal(200);
      expect((await env.api.get('/api/user/folders', bearer(reader.token))).status).to.equal(200);
      const upload403 = await upload(env, { key: reader.token, bytes: pngBytes(300, 4), json: true });
      expect(upload403.status).to.equal(403);
      expect(upload403.body.requiredScope).to.equal('files:write');
      const create403 = await env.api.post('/api/user/folders', { key: reader.token, json: { name: 'nope' } });
      expect(create403.body.requiredScope).to.equal('folders:write');
      expect((await env.api.post('/api/user/folders', { key: folders.token, json: { name: 'yes' } })).status).to.equal(200);
      const notifications = await env.api.get('/api/user/notifications', { key: reader.token });
      expect(notifications.status).to.equal(403);
      expect(notifications.body.requiredScope).to.equal('account:read');

      expect((await env.api.get(`/api/delete/${filename}?apiKey=${deleter.token}`)).status).to.equal(200);
      expect(await fileRowsOf(env, account.id)).to.have.length(0);
      expect((await env.api.get('/api/user/dashboard', { key: account.apiKey })).status).to.equal(200);
    });

    it('cannot mint tokens, reach webhooks or settings, regenerate the key, or learn it from /api/auth/me', async () => {
      const account = await env.createAccount();
      const all = await mint(account, ['account:read', 'files:read', 'files:write', 'files:delete', 'folders:read', 'folders:write']);
      for (const [method, path, json] of [
        ['post', '/api/user/tokens', { name: 'child', scopes: ['files:read'] }],
        ['get', '/api/user/tokens', undefined],
        ['post', '/api/user/webhooks', { url: 'https://example.com/hook', events: ['file.uploaded'] }],
        ['get', '/api/user/webhooks', undefined],
        ['post', '/api/user/regenerate-api-key', undefined],
        ['get', '/api/user/settings', undefined],
        ['get', '/api/user/share-links', undefined],
        ['get', '/api/user/connections', undefined],
        ['get', '/api/user/custom-domain', undefined],
        ['get', '/api/user/uploader-config?tool=curl', undefined],
        ['post', '/api/user/uploader-config', { tool: 'curl' }],
      ] as const) {
        const res = await env.api.request(method.toUpperCase(), path, { key: all.token, ...(json ? { json } : {}) });
        expect(res.status, `${method} ${path}`).to.equal(403);
        expect(res.body.success).to.equal(false);
        expect(res.text).not.to.include(account.apiKey);
      }
      expect(await env.container.db.select().from(accessTokens).where(eq(accessTokens.accountId, account.id))).to.have.length(1);

      const me = await env.api.get('/api/auth/me', bearer(all.token));
      expect(me.status).to.equal(200);
      expect(me.body.data.user.username).to.equal(account.username);
      expect(me.body.data.user.apiKey ?? null).to.equal(null);
      expect(me.text).not.to.include(account.apiKey);
      const meByKey = await env.api.get('/api/auth/me', { key: all.token });
      expect(meByKey.body.data.user.apiKey ?? null).to.equal(null);
      // The primary key still sees itself.
      expect((await env.api.get('/api/auth/me', { key: account.apiKey })).body.data.user.apiKey).to.equal(account.apiKey);
    });

    it('an expired or revoked token is 401 on /api/auth/me and 403 on uploads, like a bad key', async () => {
      const account = await env.createAccount();
      const expiring = await mint(account, ['account:read', 'files:write'], { expiresIn: 60 });
      expect((await env.api.get('/api/auth/me', { key: expiring.token })).status).to.equal(200);
      await env.container.db.update(accessTokens).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(accessTokens.id, expiring.id));
      expect((await env.api.get('/api/auth/me', { key: expiring.token })).status).to.equal(401);
      expect((await env.api.get('/api/auth/me', bearer(expiring.token))).status).to.equal(401);
      expect((await upload(env, { key: expiring.token, bytes: pngBytes(300, 5) })).status).to.equal(403);
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(pngBytes(300, 6))]), 'x.png');
      expect((await env.api.post('/api/upload', { body: form, ...bearer(expiring.token) })).status).to.equal(403);
      expect((await upload(env, { key: 'hfs_pat_unknown', bytes: pngBytes(300, 7) })).status).to.equal(403);
      expect(await fileRowsOf(env, account.id)).to.have.length(0);
    });

    it('records its last use', async () => {
      const account = await env.createAccount();
      const token = await mint(account, ['account:read']);
      expect((await env.api.get('/api/auth/me', { key: token.token })).status).to.equal(200);
      const [listed] = (await env.api.get('/api/user/tokens', { key: account.apiKey })).body.data;
      expect(Date.parse(listed.lastUsedAt)).to.be.closeTo(Date.now(), 60_000);
    });
  });

  describe('uploader configs with a new upload-only token', () => {
    it('POST /api/user/uploader-config mints a files:write token and puts it in the config', async () => {
      const account = await env.createAccount();
      const res = await env.api.post('/api/user/uploader-config', { key: account.apiKey, json: { tool: 'sharex' } });
      expect(res.status, res.text).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      const config = JSON.parse(res.text);
      const token = config.Headers['x-api-key'] as string;
      expect(token).to.match(/^hfs_pat_/);
      expect(res.text).not.to.include(account.apiKey);
      const [listed] = (await env.api.get('/api/user/tokens', { key: account.apiKey })).body.data;
      expect(listed).to.deep.include({ name: 'ShareX uploads', scopes: ['files:write'] });
      expect((await upload(env, { key: token, bytes: pngBytes(300, 8) })).status).to.equal(200);
      expect((await env.api.get('/api/user/dashboard', { key: token })).status).to.equal(403);
      expect((await env.api.post('/api/user/uploader-config', { key: account.apiKey, json: { tool: 'word' } })).status).to.equal(400);
    });
  });

  describe('across web processes', () => {
    it('a token revoked on one web process fails on another at once', async function () {
      needsPostgres(this, env.databaseUrl);
      // A web process from dist/, built first when it is stale.
      this.timeout(240_000);
      const { config } = env.container;
      const port = await freePort();
      const other = await startWeb({
        DATABASE_URL: env.databaseUrl!,
        REDIS_URL: testRedisUrl(),
        REDIS_PREFIX: config.redisPrefix,
        SECRET_KEY: config.secretKey,
        DATA_DIR: config.dataDir,
        BASE_URL: config.baseUrl,
        NODE_ENV: 'test',
        MODERATION_ENABLED: 'false',
        PORT: String(port),
      });
      try {
        const otherApi = new ApiClient(`http://127.0.0.1:${port}`);
        const account = await env.createAccount();
        const token = await mint(account, ['account:read', 'files:write']);
        expect((await otherApi.get('/api/auth/me', { key: token.token })).status).to.equal(200);
        expect((await env.api.delete(`/api/user/tokens/${token.id}`, { key: account.apiKey })).status).to.equal(200);
        expect((await otherApi.get('/api/auth/me', { key: token.token })).status).to.equal(401);
        const form = new FormData();
        form.append('file', new Blob([new Uint8Array(pngBytes(300, 9))]), 'late.png');
        expect((await otherApi.post('/api/upload', { key: token.token, body: form })).status).to.equal(403);
      } finally {
        await other.kill('SIGTERM');
      }
    });
  });
});
