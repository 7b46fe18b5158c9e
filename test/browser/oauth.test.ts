import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext } from 'playwright-core';
import { THEME_COOKIE } from '../../api/site/views/theme.js';
import { launchChromium } from '../helpers/browser.js';
import { expectAccessible, screenshot } from '../helpers/dashboard.js';
import { preparedScriptEnv } from '../helpers/engines.js';
import {
  ALL_SCOPES,
  authorizationRequest,
  callMcp,
  discoverFromChallenge,
  exchangeCode,
  refresh,
  startCallbackServer,
  type TestClient,
  tokenRequest,
} from '../helpers/oauth.js';
import { freePort } from '../helpers/ports.js';
import { type StartedProcess, startWeb } from '../helpers/processes.js';
import { runScript } from '../helpers/run-script.js';

/** A self-signed certificate for 127.0.0.1, so the test can serve a metadata document over https. */
async function loopbackCertificate(dir: string) {
  const keyPath = path.join(dir, 'key.pem');
  const certPath = path.join(dir, 'cert.pem');
  await promisify(execFile)('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', keyPath, '-out', certPath,
  ]);
  return { certPath, key: await readFile(keyPath), cert: await readFile(certPath) };
}

describe('connecting an assistant in a real browser (client ID metadata document)', function () {
  this.timeout(120_000);
  let dir: string;
  let dataDir: string;
  let documents: Server;
  let documentUrl: string;
  let documentFetches = 0;
  let callback: Awaited<ReturnType<typeof startCallbackServer>>;
  let web: StartedProcess;
  let base: string;
  let browser: Browser;
  // One browser profile for the file: the second test finds the user signed in by the first.
  let context: BrowserContext;
  const user = { username: 'browser-oauth', password: 'pw-browser-oauth' };

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'hfs-cimd-'));
    const tls = await loopbackCertificate(dir);
    callback = await startCallbackServer();
    documents = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
      if (req.url !== '/client.json') return res.writeHead(404).end();
      documentFetches += 1;
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          client_id: documentUrl,
          client_name: 'Loopback Assistant',
          client_uri: new URL('/', documentUrl).href,
          redirect_uris: [callback.url],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        }),
      );
    });
    await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
    documentUrl = `https://127.0.0.1:${(documents.address() as AddressInfo).port}/client.json`;

    const prepared = await preparedScriptEnv('oauthb');
    dataDir = prepared.dataDir;
    const port = await freePort();
    base = `http://localhost:${port}`;
    const env = {
      ...prepared.env,
      PORT: String(port),
      BASE_URL: base,
      NODE_ENV: 'test',
      MODERATION_ENABLED: 'false',
      CAPTCHA_MAX_NUMBER: '3000',
      // The document's loopback origin is let through the SSRF guard, and its certificate trusted.
      URL_FETCH_ALLOWED_ORIGINS: new URL(documentUrl).origin,
      NODE_EXTRA_CA_CERTS: tls.certPath,
    };
    const created = await runScript('scripts/admin.ts', ['user', 'create', '--username', user.username, '--password', user.password], env);
    expect(created.code, created.stderr).to.equal(0);
    web = await startWeb(env);
    browser = await launchChromium();
    context = await browser.newContext();
  });
  after(async () => {
    await browser?.close();
    await web?.kill();
    await callback?.close();
    documents?.close();
    await rm(dir, { recursive: true, force: true });
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const client = (): TestClient => ({ as: undefined!, client: { client_id: documentUrl, token_endpoint_auth_method: 'none' }, redirectUri: callback.url });

  it('runs the whole flow: discovery from the 401, the metadata document, sign-in and consent with a scope unticked, tokens and refresh', async () => {
    const { as } = await discoverFromChallenge(`${base}/mcp`);
    const test = { ...client(), as };
    const request = await authorizationRequest(test, ALL_SCOPES);
    const page = await context.newPage();
    await page.goto(request.url);

    // Not signed in: the sign-in page, which comes back to the consent step.
    await page.waitForURL((url) => url.pathname === '/login');
    await page.fill('#username', user.username);
    await page.fill('#password', user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/oauth/interaction/'));
    expect(await page.textContent('#client-name')).to.equal('Loopback Assistant');
    expect(await page.textContent('#client-host')).to.equal(new URL(documentUrl).host);
    expect(await page.textContent('#redirect-host')).to.equal(new URL(callback.url).host);
    expect(await page.isVisible('#local-warning')).to.equal(true);
    expect(await page.locator('input[name=scope]').count()).to.equal(ALL_SCOPES.length);
    // The consent page as the site's other pages: axe in both themes, at both widths, never wider than the screen.
    for (const theme of ['light', 'dark'] as const) {
      await context.addCookies([{ name: THEME_COOKIE, value: theme, url: base }]);
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 860 });
        await page.reload();
        const scrollsSideways = await page.evaluate(() => {
          const { document, innerWidth } = globalThis as unknown as { document: { documentElement: { scrollWidth: number } }; innerWidth: number };
          return document.documentElement.scrollWidth > innerWidth;
        });
        expect(scrollsSideways, `consent page (${theme}, ${width} px)`).to.equal(false);
        await expectAccessible(page, `consent page (${theme}, ${width} px)`);
        await screenshot(page, width === 1280 ? `consent-${theme}` : `consent-${theme}-phone`);
      }
    }
    await page.uncheck('input[name=scope][value="files:delete"]');
    await page.click('#allow');

    // The browser reaches the client's loopback callback: the page's CSP let the form's redirect through.
    await page.waitForURL((url) => url.href.startsWith(callback.url));
    const tokens = await exchangeCode(test, new URL(page.url()), request);
    await page.close();
    expect(tokens.scope!.split(' ')).to.have.members(ALL_SCOPES.filter((s) => s !== 'files:delete'));
    expect(documentFetches).to.be.at.least(1);

    expect((await callMcp(`${base}/mcp`, tokens.access_token)).status).to.equal(200);
    expect((await callMcp(`${base}/mcp`, tokens.access_token, 'delete_files')).status).to.equal(403);
    const rotated = await refresh(test, tokens.refresh_token!);
    expect((await callMcp(`${base}/mcp`, rotated.access_token)).status).to.equal(200);
    const old = await tokenRequest(as, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: documentUrl });
    expect(old.body.error).to.equal('invalid_grant');
  });

  it('asks a signed-in user at once, and Deny sends access_denied to the client', async () => {
    const { as } = await discoverFromChallenge(`${base}/mcp`);
    const request = await authorizationRequest({ ...client(), as }, ['files:read']);
    const page = await context.newPage();
    await page.goto(request.url);
    await page.waitForURL((url) => url.pathname.startsWith('/oauth/interaction/'));
    expect(await page.locator('input[name=scope]').count()).to.equal(1);
    await page.click('#deny');
    await page.waitForURL((url) => url.href.startsWith(callback.url));
    const answer = new URL(page.url());
    await page.close();
    expect(answer.searchParams.get('error')).to.equal('access_denied');
    expect(answer.searchParams.get('state')).to.equal(request.state);
  });

  it('never fetches a metadata document from a private address', async () => {
    const { as } = await discoverFromChallenge(`${base}/mcp`);
    const before = documentFetches;
    // The same server, named so the test's allowance does not cover it (its certificate would pass).
    const privateDocument = documentUrl.replace('127.0.0.1', 'localhost');
    const request = await authorizationRequest({ ...client(), as, client: { client_id: privateDocument } }, ['files:read']);
    const res = await fetch(request.url, { redirect: 'manual' });
    expect(res.status).to.equal(400);
    expect(await res.text()).to.match(/client/i);
    expect(documentFetches).to.equal(before);
  });
});
