import { expect } from 'chai';
import { sessions } from '../../shared/db/schema.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { solveCaptcha } from '../helpers/captcha.js';

describe('sign-in and sessions', () => {
  let env: TestEnv;
  before(async () => {
    // A small search space keeps the real proof of work quick in tests.
    env = await createTestEnv({ env: { RATE_LIMIT_LOGIN_FAILURES: '3', CAPTCHA_MAX_NUMBER: '2000' } });
  });
  after(() => env.close());

  const login = async (username: string, password: string, captchaToken?: string) =>
    env.api.post('/api/auth/login', { json: { username, password, captchaToken: captchaToken ?? (await solveCaptcha(env.api)) } });

  describe('GET /api/auth/captcha', () => {
    it('hands out a signed proof-of-work challenge that is never cached', async () => {
      const res = await env.api.get('/api/auth/captcha');
      expect(res.status).to.equal(200);
      expect(res.body).to.include.keys('algorithm', 'challenge', 'salt', 'signature', 'maxnumber');
      expect(res.body.algorithm).to.equal('SHA-256');
      expect(res.headers.get('cache-control')).to.equal('no-store');
    });
  });

  describe('POST /api/auth/register', () => {
    it('creates the account and answers like login, with a session that authenticates', async () => {
      const res = await env.api.post('/api/auth/register', {
        json: { username: 'Newcomer', email: 'new@example.com', password: 'long-enough-pw', captchaToken: await solveCaptcha(env.api) },
      });
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      expect(res.body.data.user).to.have.all.keys('id', 'username', 'apiKey', 'createdAt', 'uploadsFolder', 'email', 'plan', 'limits');
      expect(res.body.data.user).to.include({ username: 'newcomer', email: 'new@example.com', plan: 'free' });
      expect(res.body.data.sessionToken).to.be.a('string');
      expect(res.headers.get('set-cookie')).to.match(/hfs_session=.+; .*httponly/i).and.match(/samesite=lax/i);
      const me = await env.api.get('/api/auth/me', { headers: { authorization: `Bearer ${res.body.data.sessionToken}` } });
      expect(me.status).to.equal(200);
      expect(me.body.data.user.username).to.equal('newcomer');
    });

    it('refuses a taken username (409), a bad email or short password (400), and a missing captcha (400)', async () => {
      const taken = await env.createAccount({ username: 'takenname' });
      const base = { username: 'someone-else', email: 'a@example.com', password: 'long-enough-pw' };
      const dup = await env.api.post('/api/auth/register', { json: { ...base, username: taken.username, captchaToken: await solveCaptcha(env.api) } });
      expect(dup.status).to.equal(409);
      expect((await env.api.post('/api/auth/register', { json: { ...base, email: 'nope', captchaToken: await solveCaptcha(env.api) } })).status).to.equal(400);
      expect((await env.api.post('/api/auth/register', { json: { ...base, password: 'short', captchaToken: await solveCaptcha(env.api) } })).status).to.equal(400);
      // Names that would shadow hosts of the service's own as subdomains (api.example.com, www…).
      for (const username of ['api', 'www', 'WWW']) {
        const reserved = await env.api.post('/api/auth/register', { json: { ...base, username, captchaToken: await solveCaptcha(env.api) } });
        expect(reserved.status, username).to.equal(400);
        expect(reserved.body.error).to.match(/reserved/);
      }
      const noCaptcha = await env.api.post('/api/auth/register', { json: base });
      expect(noCaptcha.status).to.equal(400);
      expect(noCaptcha.body.error).to.match(/captcha/i);
    });
  });

  describe('POST /api/auth/login', () => {
    it('answers the profile subset and a session token', async () => {
      const alice = await env.createAccount({ password: 'alice-password' });
      const res = await login(alice.username, 'alice-password');
      expect(res.status).to.equal(200);
      expect(res.body.data.user).to.include({ id: alice.id, username: alice.username, apiKey: alice.apiKey });
      expect(res.body.data.user.limits).to.have.all.keys('dailyLimit', 'monthlyStorageLimit');
      expect(res.body.data.sessionToken).to.match(/^hss_/);
    });

    it('accepts each captcha solution once', async () => {
      const alice = await env.createAccount({ password: 'alice-password' });
      const token = await solveCaptcha(env.api);
      expect((await login(alice.username, 'alice-password', token)).status).to.equal(200);
      const replay = await login(alice.username, 'alice-password', token);
      expect(replay.status).to.equal(400);
      expect(replay.body.error).to.match(/already used/);
    });

    it('refuses a forged or wrong solution', async () => {
      const alice = await env.createAccount({ password: 'alice-password' });
      const token = JSON.parse(Buffer.from(await solveCaptcha(env.api), 'base64').toString());
      token.number += 1;
      const res = await login(alice.username, 'alice-password', Buffer.from(JSON.stringify(token)).toString('base64'));
      expect(res.status).to.equal(400);
      expect((await login(alice.username, 'alice-password', 'garbage')).status).to.equal(400);
    });

    it('answers a wrong password and an unknown user alike (401)', async () => {
      const alice = await env.createAccount({ password: 'alice-password' });
      const wrong = await login(alice.username, 'not-it');
      const unknown = await login('no-such-user', 'whatever');
      expect(wrong.status).to.equal(401);
      expect(unknown.status).to.equal(401);
      expect(wrong.body).to.deep.equal(unknown.body);
    });

    it('limits repeated failures per username with 429', async () => {
      const bob = await env.createAccount({ password: 'bob-password' });
      for (let i = 0; i < 3; i++) expect((await login(bob.username, 'bad')).status).to.equal(401);
      const limited = await login(bob.username, 'bob-password');
      expect(limited.status).to.equal(429);
      expect(limited.body.retryAfter).to.be.greaterThan(0);
    });

    it('refuses a banned account with 403 and the ban details; its key is refused on uploads', async () => {
      const carol = await env.createAccount({ password: 'carol-password' });
      await env.container.services.accounts.ban(carol.username, 'spam');
      const res = await login(carol.username, 'carol-password');
      expect(res.status).to.equal(403);
      expect(res.body.banInfo).to.include({ reason: 'spam', expiresAt: null });
      const form = new FormData();
      form.append('file', new Blob([Buffer.from('hello')]), 'a.txt');
      expect((await env.api.post('/api/upload', { key: carol.apiKey, body: form })).status).to.equal(403);
      const me = await env.api.get('/api/auth/me', { key: carol.apiKey });
      expect(me.body.data.user.status).to.equal('banned');
    });

    it('stores sessions hashed', async () => {
      const dave = await env.createAccount({ password: 'dave-password' });
      const res = await login(dave.username, 'dave-password');
      const rows = await env.container.db.select().from(sessions);
      expect(rows.length).to.be.greaterThan(0);
      expect(JSON.stringify(rows)).not.to.include(res.body.data.sessionToken);
    });
  });

  describe('POST /api/auth/logout', () => {
    it('ends the session at once', async () => {
      const erin = await env.createAccount({ password: 'erin-password' });
      const token = (await login(erin.username, 'erin-password')).body.data.sessionToken;
      const auth = { authorization: `Bearer ${token}` };
      expect((await env.api.get('/api/user/folders', { headers: auth })).status).to.equal(200);
      expect((await env.api.post('/api/auth/logout', { headers: auth })).status).to.equal(200);
      expect((await env.api.get('/api/user/folders', { headers: auth })).status).to.equal(401);
    });
  });
});
