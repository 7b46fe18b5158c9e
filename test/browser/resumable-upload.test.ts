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
    // Slow enough that Pause lands while the upload is under way.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    const throttle = (uploadThroughput: number) => cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput });
    await throttle(8 * 1024 * 1024);
    await page.goto(`${site}/`);
    const file = path.join(env.dataDir, 'big-from-browser.png');
    const bytes = pngBytes(20 * 1024 * 1024, 9);
    await writeFile(file, bytes);
    await page.selectOption('#expiry', '7d');
    await page.setInputFiles('#file', file);
    const pause = page.locator('.upload-item button.pause');
    await pause.waitFor();
    const progress = page.locator('.upload-item progress');
    await page.waitForFunction(() => {
      const { document } = globalThis as unknown as { document: { querySelector(s: string): { value: number } | null } };
      return (document.querySelector('.upload-item progress')?.value ?? 0) > 0;
    });
    await pause.click();
    await page.locator('.upload-item .upload-state:text-matches("^Paused at")').waitFor();
    expect(await pause.textContent()).to.contain('Resume');
    const pausedAt = await progress.evaluate((bar) => (bar as unknown as { value: number }).value);
    expect(pausedAt).to.be.below(bytes.length);
    await throttle(-1);
    await pause.click();
    await page.waitForSelector('#result-url', { timeout: 60_000 });
    const url = await page.getAttribute('#result-url', 'href');
    const [row] = (await fileRowsOf(env, null)).filter((r) => url!.endsWith(r.filename));
    expect(row).to.include({ source: 'tus', expiry: '7d', size: bytes.length });
    // Created, sent in chunks, asked where to go on from after the pause (HEAD), result fetched.
    expect(tusRequests).to.include.members(['POST', 'PATCH', 'HEAD', 'GET']);
    await page.close();
  });
});
