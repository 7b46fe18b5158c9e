import type { Client } from '@modelcontextprotocol/client';
import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { files } from '../../shared/db/schema.js';
import { launchChromium } from '../helpers/browser.js';
import { consoleErrorsOf, expectAccessible } from '../helpers/dashboard.js';
import { eventually } from '../helpers/eventually.js';
import { bundleHostBridge, type HostPages, openHost, serveHostPages, showApp } from '../helpers/mcp-app-host.js';
import { APPS_HOST, photoWithThumbnails } from '../helpers/mcp-apps.js';
import { mcpClient } from '../helpers/mcp-client.js';
import { connectAssistant } from '../helpers/oauth.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';

type Structured = Record<string, any>;

describe('MCP Apps in a sandboxed host (Chromium, ext-apps AppBridge, a real server and OAuth token)', function () {
  this.timeout(120_000);
  let env: TestEnv;
  let browser: Browser;
  let pages: HostPages;
  let client: Client;
  let user: { id: string; username: string; apiKey: string };
  let context: BrowserContext;
  let page: Page;

  before(async () => {
    [env, browser, pages] = await Promise.all([createTestEnv({ env: { CAPTCHA_MAX_NUMBER: '2000' } }), launchChromium(), bundleHostBridge().then(serveHostPages)]);
    user = await env.createAccount();
    const { tokens } = await connectAssistant(env, { user });
    client = await mcpClient(`${env.container.config.baseUrl}/mcp`, tokens.access_token, '2026-07-28', APPS_HOST);
  });
  after(async () => {
    await client?.close();
    await browser?.close();
    await pages?.close();
    await env?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 900, height: 800 } });
    page = await openHost(context, pages, client);
  });
  afterEach(async () => {
    // The sandbox's CSP lets through what the resource declares and nothing else: nothing may be refused.
    expect(consoleErrorsOf(page).filter((e) => /Content Security Policy|Refused to/.test(e))).to.deep.equal([]);
    await context.close();
  });

  async function open(uri: string, tool: string, args: Record<string, unknown>): Promise<{ app: Frame; result: Structured }> {
    const result = await client.callTool({ name: tool, arguments: args });
    expect(result.isError, JSON.stringify(result.content)).to.not.equal(true);
    return { app: await showApp(page, client, uri, args, result as never), result: result.structuredContent as Structured };
  }

  const loadedImages = (app: Frame) =>
    app.$$eval('[data-testid=gallery-files] img', (imgs) => imgs.map((img) => ({ src: (img as HTMLImageElement).src, width: (img as HTMLImageElement).naturalWidth })));

  it('gallery: shows a real list_files result with thumbnails (a private file’s too), passes axe, and renames and deletes through the tools', async () => {
    const shown = await photoWithThumbnails(env, user.apiKey, 'sunrise.png', 1);
    const secret = await photoWithThumbnails(env, user.apiKey, 'secret.png', 2);
    const doomed = await photoWithThumbnails(env, user.apiKey, 'doomed.png', 3);
    expect((await env.api.patch(`/api/user/images/${secret.filename}/privacy`, { key: user.apiKey, json: { isPrivate: true } })).status).to.equal(200);
    const { app } = await open('ui://hosted-files/gallery.html', 'list_files', {});

    await app.waitForSelector(`[data-filename="${doomed.filename}"]`);
    await app.waitForFunction(() => Array.from(document.querySelectorAll('[data-testid=gallery-files] img')).every((img) => (img as HTMLImageElement).complete));
    const images = await loadedImages(app);
    expect(images.length).to.be.at.least(3);
    for (const image of images) expect(image.width, image.src).to.be.above(0);
    await expectAccessible(app, 'gallery');

    // Rename: select one file with the keyboard, name it anew, and the database has it.
    await app.focus(`[data-filename="${shown.filename}"] input[type=checkbox]`);
    await app.page().keyboard.press('Space');
    await app.fill('[data-testid=rename-input]', 'renamed-sunrise.png');
    await app.click('button:text("Rename")');
    await eventually(async () => (await env.container.db.select().from(files).where(eq(files.id, shown.id)))[0]?.filename === 'renamed-sunrise.png');
    await app.waitForSelector('[data-filename="renamed-sunrise.png"]');
    await app.waitForSelector(`text=Renamed ${shown.filename} to renamed-sunrise.png.`);

    // Delete asks first.
    await app.click(`[data-filename="${doomed.filename}"] label`);
    await app.click('button:text("Delete")');
    await app.waitForSelector('dialog[open]');
    await expectAccessible(app, 'gallery delete dialog');
    expect(await env.container.db.select().from(files).where(eq(files.id, doomed.id))).to.have.length(1);
    await app.click('dialog button:text("Delete for good")');
    await eventually(async () => (await env.container.db.select().from(files).where(eq(files.id, doomed.id))).length === 0);
    await app.waitForSelector(`[data-filename="${doomed.filename}"]`, { state: 'detached' });
  });

  it('file card: shows get_file’s preview, size and dates, with links to copy; passes axe', async () => {
    const row = await photoWithThumbnails(env, user.apiKey, 'card.png', 4);
    const { app, result } = await open('ui://hosted-files/file-card.html', 'get_file', { filename: row.filename });
    await app.waitForSelector('[data-testid=file-preview]');
    await app.waitForFunction(() => (document.querySelector('[data-testid=file-preview]') as HTMLImageElement).naturalWidth > 0);
    expect(await app.textContent('h1')).to.equal('card.png');
    expect(await app.inputValue('input[data-format=url]')).to.equal(result.url);
    expect(await app.textContent('.facts')).to.include(row.filename);
    await expectAccessible(app, 'file card');
    await app.click('button:text("Open the file")');
    await eventually(async () => (await page.evaluate(() => (window as unknown as { opened: string[] }).opened)).includes(result.url as string));
  });

  for (const [label, size] of [
    ['in one request', 2000],
    ['by tus from 8 MiB', 9 * 1024 * 1024],
  ] as const) {
    it(`drop zone: the user picks a file, it goes into the drop link ${label}, and check_file_handoff returns it at once`, async () => {
      const { app, result: link } = await open('ui://hosted-files/drop-zone.html', 'request_file_from_user', { note: 'The signed form, please' });
      await app.waitForSelector('[data-testid=drop-input]', { state: 'attached' });
      expect(await app.textContent('main')).to.include('The signed form, please');
      await expectAccessible(app, 'drop zone');
      await app.setInputFiles('[data-testid=drop-input]', { name: 'signed-form.pdf', mimeType: 'application/pdf', buffer: Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(size - 9, 32)]) });
      await app.waitForSelector('[data-testid=drop-sent]', { timeout: 60_000 });
      const handoff = (await client.callTool({ name: 'check_file_handoff', arguments: { id: link.id, waitSeconds: 0 } })).structuredContent as Structured;
      expect(handoff.status).to.equal('received');
      expect(handoff.file).to.include({ originalName: 'signed-form.pdf', size, source: 'drop' });
    });
  }
});
