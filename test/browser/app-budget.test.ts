import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { useBrowserEnv } from '../helpers/browser.js';
import { openSignedIn, siteUrlOf } from '../helpers/dashboard.js';

// The budget: the first load of the dashboard stays under 150 KB of JavaScript, gzipped,
// and the public pages load less (the upload page carries the uploader, the others a small script).
const KB = 1024;

/** Every script the page loads until the network is quiet, with its gzipped size. */
async function scriptsLoaded(page: Page, url: string) {
  const scripts: { url: string; gzipped: number; cacheControl: string | undefined; tusClient: boolean }[] = [];
  page.on('response', (res) => {
    if (res.request().resourceType() !== 'script') return;
    void res.body().then((body) => scripts.push({ url: res.url(), gzipped: gzipSync(body).length, cacheControl: res.headers()['cache-control'], tusClient: body.includes('Tus-Resumable') }));
  });
  await page.goto(url, { waitUntil: 'networkidle' });
  return scripts;
}

describe('the web app first load', function () {
  this.timeout(60_000);
  const ctx = useBrowserEnv();

  for (const [name, pathname, budget] of [
    ['dashboard', '/dashboard', 150 * KB],
    ['upload page', '/', 60 * KB],
    ['sign-in page', '/login', 20 * KB],
    ['error page', '/no/such/page', 20 * KB],
  ] as const) {
    it(`loads the ${name} with under ${budget / KB} KB of gzipped JavaScript, hashed and cached for a year`, async () => {
      const user = await ctx.env.createAccount();
      const page = await openSignedIn(ctx.browser, ctx.env, user.id, '/api/ping');
      const scripts = await scriptsLoaded(page, `${siteUrlOf(ctx.env)}${pathname}`);
      const appScripts = scripts.filter((s) => new URL(s.url).pathname.startsWith('/app/assets/'));
      expect(appScripts, 'the app bundle was loaded').to.not.deep.equal([]);
      for (const script of appScripts) expect(script.cacheControl).to.equal('public, max-age=31536000, immutable');
      const total = scripts.reduce((sum, s) => sum + s.gzipped, 0);
      expect(total).to.be.below(budget);
      // The resumable-upload client (which sends Tus-Resumable headers) is fetched only for a big file.
      expect(scripts.filter((s) => s.tusClient).map((s) => s.url)).to.deep.equal([]);
      await page.context().close();
    });
  }
});
