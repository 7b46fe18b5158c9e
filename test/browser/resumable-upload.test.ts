import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser.js';
import { pngBytes } from '../helpers/media.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf } from '../helpers/uploads.js';

describe('the upload page sends big files resumably (tus), with Pause and Resume', function () {
  this.timeout(90_000);
  let env: TestEnv;
  let browser: Browser;
  before(async () => {
    env = await createTestEnv();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await env.close();
  });

  it('uploads a 20 MB file anonymously through /api/uploads, paused and resumed on the way', async () => {
    const site = env.container.config.siteUrl;
    const page = await browser.newPage();
    const tusRequests: string[] = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname.startsWith('/api/uploads')) tusRequests.push(req.method());
    });
    await page.goto(`${site}/`);
    const file = path.join(env.dataDir, 'big-from-browser.png');
    const bytes = pngBytes(20 * 1024 * 1024, 9);
    await writeFile(file, bytes);
    await page.setInputFiles('#file', file);
    await page.selectOption('#expiry', '7d');
    await page.click('button[type=submit]');
    await page.waitForSelector('#pause:not([hidden])');
    await page.click('#pause');
    await page.waitForSelector('#pause:text("Resume")');
    await page.click('#pause');
    await page.waitForSelector('#result:not([hidden])', { timeout: 60_000 });
    const url = await page.getAttribute('#result-url', 'href');
    const [row] = (await fileRowsOf(env, null)).filter((r) => url!.endsWith(r.filename));
    expect(row).to.include({ source: 'tus', expiry: '7d', size: bytes.length });
    expect(tusRequests).to.include.members(['POST', 'PATCH']);
    await page.close();
  });
});
