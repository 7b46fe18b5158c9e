import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { SESSION_COOKIE } from '../../shared/services/accounts/session.service.js';
import { launchChromium } from '../helpers/browser.js';
import { expectAccessible, screenshot, watchConsole } from '../helpers/dashboard.js';
import { pngBytes } from '../helpers/media.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf } from '../helpers/uploads.js';

describe('website in a real browser', function () {
  this.timeout(90_000);
  let env: TestEnv;
  let browser: Browser;
  let site: string;

  before(async () => {
    env = await createTestEnv({ env: { CAPTCHA_MAX_NUMBER: '3000' } });
    site = env.container.config.siteUrl;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await env.close();
  });

  it('signs in through the page (captcha solved in the browser), lands on the dashboard and signs out from its header', async () => {
    const alice = await env.createAccount({ password: 'alice-in-browser' });
    const page = await browser.newPage();
    await page.goto(`${site}/login`);
    await page.getByLabel('Username').fill(alice.username);
    await page.getByLabel('Password').fill('alice-in-browser');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${site}/dashboard`);
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    expect(await page.content()).to.not.contain(alice.apiKey);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${site}/`);
    expect((await page.context().cookies()).map((c) => c.name)).to.not.include(SESSION_COOKIE);
    expect((await page.goto(`${site}/dashboard`))!.url()).to.equal(`${site}/login?next=%2Fdashboard`);
    await page.close();
  });

  it('returns to the page that sent the visitor to sign in (next), never to another site', async () => {
    const dan = await env.createAccount({ password: 'dan-in-browser' });
    const page = await browser.newPage();
    await page.goto(`${site}/login?next=${encodeURIComponent('/dashboard/settings')}`);
    await page.getByLabel('Username').fill(dan.username);
    await page.getByLabel('Password').fill('dan-in-browser');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${site}/dashboard/settings`);
    await page.close();
    const outside = await env.api.get(`/login?next=${encodeURIComponent('//evil.example/x')}`);
    expect(outside.text).to.include('data-next="/dashboard"');
  });

  it('shows the error of a wrong password on the page', async () => {
    const bob = await env.createAccount({ password: 'bob-in-browser' });
    const page = await browser.newPage();
    await page.goto(`${site}/login`);
    await page.getByLabel('Username').fill(bob.username);
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('.status.error');
    expect(await page.textContent('.status')).to.equal('Invalid username or password');
    await page.close();
  });

  it('uploads anonymously from the landing page and opens the returned URL', async () => {
    const page = await browser.newPage();
    const errors = watchConsole(page);
    await page.goto(`${site}/`);
    const file = path.join(env.dataDir, 'from-browser.png');
    const bytes = pngBytes(5000, 3);
    await writeFile(file, bytes);
    // The expiry applies to the files chosen after it; choosing them starts the upload.
    await page.selectOption('#expiry', '1d');
    await page.setInputFiles('#file', file);
    await page.waitForSelector('#result-url');
    const url = await page.getAttribute('#result-url', 'href');
    expect(url).to.match(new RegExp(`^${site}/f/[A-Za-z0-9]{10}\\.png$`));
    const [row] = (await fileRowsOf(env, null)).filter((r) => url!.endsWith(r.filename));
    expect(row).to.include({ source: 'web', expiry: '1d', size: 5000 });
    await expectAccessible(page, 'upload page');
    await screenshot(page, 'upload-page');
    // No CSP violation, no script error.
    expect(errors).to.deep.equal([]);

    const response = await page.goto(url!);
    expect(response!.status()).to.equal(200);
    expect(response!.headers()['content-type']).to.equal('image/png');
    expect((await response!.body()).equals(bytes)).to.equal(true);
    await page.close();
  });

  it('uploads several files at once into the library of the signed-in account, with no key in the page', async () => {
    const carol = await env.createAccount();
    const { token } = await env.container.services.sessions.create(carol.id, 'playwright');
    const context = await browser.newContext();
    await context.addCookies([{ name: SESSION_COOKIE, value: token, url: site, httpOnly: true, sameSite: 'Lax' }]);
    const page = await context.newPage();
    const sent: string[] = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname === '/api/upload') sent.push(req.headers()['x-api-key'] ?? 'no key');
    });
    await page.goto(`${site}/`);
    const files = ['one.png', 'two.png'].map((name) => path.join(env.dataDir, `carol-${name}`));
    for (const [i, file] of files.entries()) await writeFile(file, pngBytes(3000 + i, i));
    await page.setInputFiles('#file', files);
    await page.locator('.upload-item.is-done').nth(1).waitFor();
    const rows = await fileRowsOf(env, carol.id);
    expect(rows.map((r) => r.originalName).sort()).to.deep.equal(['carol-one.png', 'carol-two.png']);
    for (const row of rows) expect(row.source).to.equal('web');
    expect(sent).to.deep.equal(['no key', 'no key']);
    const storage = await page.evaluate(() => {
      const { localStorage, sessionStorage } = globalThis as unknown as Record<'localStorage' | 'sessionStorage', Record<string, string>>;
      return JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage });
    });
    expect(storage).to.not.contain(carol.apiKey);
    await context.close();
  });
});
