import { expect } from 'chai';
import { SESSION_COOKIE } from '../../shared/services/accounts/session.service.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { getWithHost } from '../helpers/uploads.js';

// What a browser sends when it navigates, and what an API client sends.
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const CLIENT = { accept: 'application/json' };

describe('site pages', () => {
  let env: TestEnv;
  let site: string;
  before(async () => {
    env = await createTestEnv();
    site = env.container.config.siteUrl;
  });
  after(() => env.close());

  const raw = (path: string, init: RequestInit = {}) => fetch(`${site}${path}`, { redirect: 'manual', ...init });

  describe('error pages', () => {
    it('gives a browser a designed HTML page with the status and a way home for a missing route, file, album and share link', async () => {
      const alice = await env.createAccount();
      const port = new URL(site).port;
      const missing = [
        [`${site}/no/such/page`, 404],
        [`${site}/u/${alice.username}/nothing.png`, 404],
        [`${site}/s/zzzzzzz`, 404],
        [`${site}/f/nothing1234.png`, 404],
        [`${site}/album/nosuchalbum`, 404],
        [`${site}/l/${'x'.repeat(22)}`, 404],
      ] as const;
      for (const [url, status] of missing) {
        const res = await fetch(url, { headers: BROWSER });
        const page = await res.text();
        expect(res.status, url).to.equal(status);
        expect(res.headers.get('content-type'), url).to.equal('text/html; charset=utf-8');
        expect(page, url).to.match(/^<!DOCTYPE html>/);
        expect(page, url).to.include('Nothing here');
        expect(page, url).to.include('href="/"');
        expect(res.headers.get('content-security-policy'), url).to.include("script-src 'self'");
      }
      // A personal subdomain serves only files: the page's way home and styles lead to the site.
      const sub = await getWithHost(`http://${alice.username}.localhost:${port}/nothing.png`, BROWSER);
      const subPage = sub.body.toString();
      expect(sub.status).to.equal(404);
      expect(subPage).to.include(`href="${site}/"`);
      expect(subPage).to.match(new RegExp(`<link rel="stylesheet" href="${site}/app/assets/`));
      expect(subPage).to.not.include('<script');
      expect(sub.headers['content-security-policy']).to.include(`style-src 'self' ${site}`);
    });

    it('keeps the JSON error body for API clients, for the API whatever the Accept header, and for HEAD its status', async () => {
      for (const headers of [CLIENT, {}]) {
        const res = await raw('/no/such/page', { headers });
        expect(res.status).to.equal(404);
        expect(await res.json()).to.deep.equal({ success: false, error: 'Route not found' });
      }
      const api = await raw('/api/no-such-endpoint', { headers: BROWSER });
      expect(api.status).to.equal(404);
      expect(api.headers.get('content-type')).to.include('application/json');
      const head = await raw('/no/such/page', { method: 'HEAD', headers: BROWSER });
      expect(head.status).to.equal(404);
    });
  });

  describe('account pages', () => {
    it('sends /account to the dashboard settings, and the dashboard to sign-in when signed out', async () => {
      const res = await raw('/account');
      expect(res.status).to.equal(301);
      expect(res.headers.get('location')).to.equal('/dashboard/settings');
      const dashboard = await raw('/dashboard/settings');
      expect(dashboard.status).to.equal(302);
      expect(dashboard.headers.get('location')).to.equal('/login?next=%2Fdashboard%2Fsettings');
    });

    it('labels every field of sign-in and registration, with no placeholder standing in for a label', async () => {
      for (const [path, ids] of [['/login', ['username', 'password']], ['/register', ['username', 'email', 'password']]] as const) {
        const page = await (await raw(path)).text();
        for (const id of ids) {
          expect(page, path).to.include(`<label for="${id}">`);
          expect(page, path).to.match(new RegExp(`<input id="${id}" name="${id}"`));
        }
        expect(page, path).to.not.include('placeholder=');
      }
    });

    it('signs out with a form post: the session ends, the cookie goes, and the browser is sent home; another site cannot', async () => {
      const alice = await env.createAccount();
      const { token } = await env.container.services.sessions.create(alice.id, null);
      const cookie = `${SESSION_COOKIE}=${token}`;
      const foreign = await raw('/logout', { method: 'POST', headers: { cookie, origin: 'https://evil.example' } });
      expect(foreign.status).to.equal(403);
      expect(await env.container.services.sessions.principalOf(token)).to.include({ id: alice.id });

      const res = await raw('/logout', { method: 'POST', headers: { cookie, origin: site } });
      expect(res.status).to.equal(303);
      expect(res.headers.get('location')).to.equal('/');
      expect(res.headers.get('set-cookie')).to.match(new RegExp(`^${SESSION_COOKIE}=;`));
      expect(await env.container.services.sessions.principalOf(token)).to.equal(undefined);
    });
  });

  describe('theme', () => {
    it('sets the theme cookie from the header switch without script, goes back, and renders <html data-theme> from it', async () => {
      const res = await raw('/theme', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: site },
        body: new URLSearchParams({ theme: 'dark', back: '/login?next=%2Fdashboard' }),
      });
      expect(res.status).to.equal(303);
      expect(res.headers.get('location')).to.equal('/login?next=%2Fdashboard');
      expect(res.headers.get('set-cookie')).to.match(/^theme=dark; path=\/; expires=.*samesite=lax/i);
      expect(await (await raw('/login', { headers: { cookie: 'theme=dark' } })).text()).to.include('<html lang="en" data-theme="dark">');
      expect(await (await raw('/login', { headers: { cookie: 'theme=purple' } })).text()).to.include('<html lang="en">');
      expect((await raw('/theme', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'theme=purple' })).status).to.equal(400);
      const away = await raw('/theme', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'theme=light&back=%2F%2Fevil.example' });
      expect(away.headers.get('location')).to.equal('/');
    });
  });
});
