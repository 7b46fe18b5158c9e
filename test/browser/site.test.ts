import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { pngBytes } from '../helpers/media.js';
import { launchChromium } from '../helpers/browser.js';
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

  it('signs in through the page (captcha solved in the browser) and shows the account', async () => {
    const alice = await env.createAccount({ password: 'alice-in-browser' });
    const page = await browser.newPage();
    await page.goto(`${site}/login`);
    await page.fill('#username', alice.username);
    await page.fill('#password', 'alice-in-browser');
    await page.click('button[type=submit]');
    await page.waitForURL(`${site}/account`);
    expect(await page.textContent('#api-key')).to.equal(alice.apiKey);
    expect(await page.textContent('h1')).to.equal(alice.username);
    await page.close();
  });

  it('shows the error of a wrong password on the page', async () => {
    const bob = await env.createAccount({ password: 'bob-in-browser' });
    const page = await browser.newPage();
    await page.goto(`${site}/login`);
    await page.fill('#username', bob.username);
    await page.fill('#password', 'wrong');
    await page.click('button[type=submit]');
    await page.waitForSelector('.status.error');
    expect(await page.textContent('.status')).to.equal('Invalid username or password');
    await page.close();
  });

  it('uploads anonymously from the landing page and opens the returned URL', async () => {
    const page = await browser.newPage();
    await page.goto(`${site}/`);
    const file = path.join(env.dataDir, 'from-browser.png');
    const bytes = pngBytes(5000, 3);
    await writeFile(file, bytes);
    await page.setInputFiles('#file', file);
    await page.selectOption('#expiry', '1d');
    await page.click('button[type=submit]');
    await page.waitForSelector('#result:not([hidden])');
    const url = await page.getAttribute('#result-url', 'href');
    expect(url).to.match(new RegExp(`^${site}/f/[A-Za-z0-9]{10}\\.png$`));
    const [row] = (await fileRowsOf(env, null)).filter((r) => url!.endsWith(r.filename));
    expect(row).to.include({ source: 'web', expiry: '1d', size: 5000 });

    const response = await page.goto(url!);
    expect(response!.status()).to.equal(200);
    expect(response!.headers()['content-type']).to.equal('image/png');
    expect((await response!.body()).equals(bytes)).to.equal(true);
    await page.close();
  });
});
