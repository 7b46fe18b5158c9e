import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
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

describe('a tus client on a page of another origin (tus-js-client in Chromium)', function () {
  this.timeout(90_000);
  let env: TestEnv;
  let browser: Browser;
  let elsewhere: Server;
  let pageOrigin: string;
  before(async () => {
    env = await createTestEnv();
    browser = await launchChromium();
    // Someone's site: a page and tus-js-client's browser bundle, on another port of the same host.
    const bundle = await readFile(createRequire(import.meta.url).resolve('tus-js-client/dist/tus.min.js'));
    elsewhere = createServer((req, res) => {
      if (req.url === '/tus.min.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>uploader</title><script src="/tus.min.js"></script>');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://localhost:${(elsewhere.address() as AddressInfo).port}`;
  });
  after(async () => {
    await browser?.close();
    elsewhere?.close();
    await env.close();
  });

  /** Runs a tus-js-client upload of `bytes` in the page; what it ended with, as the page could read it. */
  const uploadInPage = (page: Page, args: { endpoint: string; key?: string; withCredentials?: boolean; bytes: Buffer }) =>
    page.evaluate(
      // A string: the tests are compiled without the DOM's types.
      `(async ({ endpoint, key, withCredentials, base64 }) => {
        const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        return new Promise((resolve) => {
          const upload = new tus.Upload(new Blob([bytes], { type: 'image/png' }), {
            endpoint,
            chunkSize: 100000,
            retryDelays: [],
            headers: key ? { 'x-api-key': key } : {},
            metadata: { filename: 'from-elsewhere.png' },
            onBeforeRequest: (req) => { if (withCredentials) req.getUnderlyingObject().withCredentials = true; },
            onSuccess: async ({ lastResponse }) => {
              const result = await fetch(upload.url + '/result', { headers: { 'x-api-key': key } }).then((r) => r.json());
              resolve({ ok: true, hostedUrl: lastResponse.getHeader('X-Hosted-Url'), result });
            },
            onError: (err) => resolve({ ok: false, status: err.originalResponse ? err.originalResponse.getStatus() : null }),
          });
          upload.start();
        });
      })(${JSON.stringify({ ...args, bytes: undefined, base64: args.bytes.toString('base64') })})`,
    ) as Promise<{ ok: boolean; hostedUrl?: string; result?: { success: boolean; data: { url: string; sizeBytes: number } }; status?: number | null }>;

  it('uploads with an API key across origins: chunks, the hosted URL and the result are readable', async () => {
    const user = await env.createAccount();
    const page = await browser.newPage();
    await page.goto(`${pageOrigin}/`);
    const bytes = pngBytes(350_000, 12);
    const outcome = await uploadInPage(page, { endpoint: `${env.container.config.baseUrl}/api/uploads`, key: user.apiKey, bytes });
    expect(outcome.ok, JSON.stringify(outcome)).to.equal(true);
    expect(outcome.result!.success).to.equal(true);
    expect(outcome.result!.data.sizeBytes).to.equal(bytes.length);
    expect(outcome.hostedUrl).to.equal(outcome.result!.data.url);
    const rows = await fileRowsOf(env, user.id);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ source: 'tus', size: bytes.length, originalName: 'from-elsewhere.png' });
    await page.close();
  });

  it("never lets the site's visitor cookie upload from another origin", async () => {
    const page = await browser.newPage();
    // The visitor cookie of the site, in this browser.
    await page.goto(`${env.container.config.siteUrl}/`);
    expect((await page.context().cookies(env.container.config.siteUrl)).length).to.be.above(0);
    await page.goto(`${pageOrigin}/`);
    const endpoint = `${env.container.config.baseUrl}/api/uploads`;
    // With credentials the browser refuses (no Access-Control-Allow-Credentials); without, no cookie goes: 401.
    expect(await uploadInPage(page, { endpoint, withCredentials: true, bytes: pngBytes(2000, 13) })).to.deep.equal({ ok: false, status: null });
    expect(await uploadInPage(page, { endpoint, bytes: pngBytes(2000, 14) })).to.deep.equal({ ok: false, status: 401 });
    expect(await fileRowsOf(env, null)).to.deep.equal([]);
    await page.close();
  });
});
