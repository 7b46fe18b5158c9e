import { expect } from 'chai';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { useBrowserEnv } from '../helpers/browser.js';

describe('GET /api/docs in a real browser', function () {
  this.timeout(90_000);
  const started = useBrowserEnv();

  it('renders the API reference from our own assets under its CSP, showing POST /api/upload', async () => {
    const { env, browser } = started;
    const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    const refused: string[] = [];
    const foreign: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') refused.push(`${message.text()} ${message.location().url}`);
    });
    page.on('pageerror', (err) => refused.push(err.message));
    page.on('request', (request) => {
      if (!request.url().startsWith(env.web.url) && !request.url().startsWith('data:')) foreign.push(request.url());
    });

    const response = await page.goto(`${env.web.url}/api/docs`);
    expect(response!.status()).to.equal(200);
    expect(response!.headers()['content-security-policy']).to.include("script-src 'self'").and.not.include('unsafe-eval');

    const upload = page.locator('.opblock-post .opblock-summary-path[data-path="/api/upload"]');
    await upload.waitFor({ state: 'visible' });
    expect(await upload.textContent()).to.include('/api/upload');
    expect(await page.getByText('Upload one file', { exact: true }).isVisible()).to.equal(true);
    // Opened, it shows the multipart body and the shared error answers (more of the UI, same CSP).
    await upload.click();
    const operation = page.locator('#operations-Uploads-post_api_upload');
    await operation.locator('.opblock-section-request-body select').waitFor({ state: 'visible' });
    expect(await operation.locator('.opblock-section-request-body select').inputValue()).to.equal('multipart/form-data');
    await operation.locator('.response[data-code="429"]').waitFor({ state: 'visible' });

    // Kept after the run (one file, overwritten) for a person to look at.
    const screenshot = path.join(tmpdir(), 'hfs-api-docs.png');
    await page.screenshot({ path: screenshot, fullPage: false });
    expect((await stat(screenshot)).size).to.be.greaterThan(10_000);

    expect(refused, 'console errors (a CSP refusal shows here)').to.deep.equal([]);
    expect(foreign, 'requests to other origins').to.deep.equal([]);
    await page.close();
  });
});
