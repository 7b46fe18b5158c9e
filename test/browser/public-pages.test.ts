import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { THEME_COOKIE } from '../../api/site/views/theme.js';
import { files } from '../../shared/db/schema.js';
import { useBrowserEnv } from '../helpers/browser.js';
import { consoleErrorsOf, expectAccessible, screenshot, watchConsole } from '../helpers/dashboard.js';
import { createFolder } from '../helpers/folders.js';
import { upload } from '../helpers/uploads.js';

// The public server-rendered pages (drop, album, share link password and folder pages) as a visitor
// meets them: in both themes, at desktop and phone widths, checked by axe, never wider than the
// screen; the album pages' lightbox driven by the keyboard.

const THEMES = ['light', 'dark'] as const;
const WIDTHS = [1280, 390] as const;

interface PublicPage {
  name: string;
  url: string;
  status: number;
  /** the files its grid shows, newest first (album pages only) */
  tiles?: string[];
}

/** Whether the page scrolls sideways (run in the page: the tests compile without the DOM types). */
const scrollsSideways = (page: Page) =>
  page.evaluate(() => {
    const { document, innerWidth } = globalThis as unknown as { document: { documentElement: { scrollWidth: number } }; innerWidth: number };
    return document.documentElement.scrollWidth > innerWidth;
  });

const hasFocus = (page: Page, selector: string) =>
  page.locator(selector).evaluate((element) => element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement);

describe('public pages in a real browser', function () {
  this.timeout(120_000);
  const started = useBrowserEnv();
  const pages: PublicPage[] = [];

  before(async () => {
    const { env } = started;
    const alice = await env.createAccount();
    const folderId = await createFolder(env, alice, 'Summer by the sea');
    const uploads = [
      { name: 'harbour.png', colour: '#2f7fd0' },
      { name: 'dunes.png', colour: '#d0a030' },
      { name: 'lighthouse.png', colour: '#c03040' },
    ];
    const names: string[] = [];
    for (const [i, { name, colour }] of uploads.entries()) {
      const bytes = await sharp({ create: { width: 640 + i * 40, height: 480, channels: 3, background: colour } }).png().toBuffer();
      const res = await upload(env, { key: alice.apiKey, bytes, name, json: true });
      expect(res.status, res.text).to.equal(200);
      const filename = res.body.data.filename as string;
      expect((await env.api.patch(`/api/user/images/${filename}/move`, { key: alice.apiKey, json: { folderId } })).status).to.equal(200);
      // The worker's thumbnail job, run here: the grid shows the small rendition, the lightbox the preview.
      const [row] = await env.container.db.select().from(files).where(eq(files.filename, filename));
      expect(await env.container.services.thumbnails.make(row!.id, row!.objectKey)).to.equal('made');
      names.unshift(filename);
    }
    const album = await env.api.post(`/api/user/folders/${folderId}/share`, { key: alice.apiKey });
    const folderLink = await env.api.post('/api/user/share-links', { key: alice.apiKey, json: { folderId } });
    const lockedLink = await env.api.post('/api/user/share-links', { key: alice.apiKey, json: { folderId, password: 'correct horse' } });
    const drop = await env.api.post('/api/user/drop-links', { key: alice.apiKey, json: { note: 'The signed contract, please — as a PDF if you can.' } });
    const emptyFolder = await createFolder(env, alice, 'Nothing yet');
    const emptyAlbum = await env.api.post(`/api/user/folders/${emptyFolder}/share`, { key: alice.apiKey });
    pages.push(
      { name: 'drop', url: drop.body.data.url as string, status: 200 },
      { name: 'album-empty', url: emptyAlbum.body.data.url as string, status: 200 },
      { name: 'album', url: album.body.data.url as string, status: 200, tiles: names },
      { name: 'share-password', url: lockedLink.body.data.url as string, status: 401 },
      { name: 'share-folder', url: folderLink.body.data.url as string, status: 200, tiles: names },
    );
  });

  async function open(pageName: string, theme: (typeof THEMES)[number], width: number) {
    const target = pages.find((p) => p.name === pageName)!;
    const context = await started.browser.newContext({ viewport: { width, height: 860 } });
    await context.addCookies([{ name: THEME_COOKIE, value: theme, url: started.env.container.config.siteUrl }]);
    const page = await context.newPage();
    watchConsole(page);
    const loaded: string[] = [];
    page.on('request', (request) => loaded.push(request.url()));
    const response = await page.goto(target.url);
    expect(response!.status()).to.equal(target.status);
    expect(await page.getAttribute('html', 'data-theme')).to.equal(theme);
    return { page, target, loaded };
  }

  it('hides the native file input behind the drop zone, which is its label, shows the focus on the zone and says what was chosen', async () => {
    const { page } = await open('drop', 'light', 390);
    // A file input's role is button; its name comes from the zone, its label.
    const input = page.getByRole('button', { name: 'Drop a file here or Choose a file', exact: true });
    expect(await input.getAttribute('id')).to.equal('drop-file');
    await input.focus();
    const outline = await page.locator('#drop-zone').evaluate((zone) => (globalThis as unknown as { getComputedStyle(e: unknown): { outlineStyle: string } }).getComputedStyle(zone).outlineStyle);
    expect(outline).to.equal('solid');
    await input.setInputFiles({ name: 'contract.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n') });
    expect(await page.textContent('#drop-status')).to.equal('Ready to send: contract.pdf (9 B)');
    expect(await page.isVisible('.drop-chosen')).to.equal(true);
    expect(await scrollsSideways(page)).to.equal(false);
    await page.context().close();
  });

  it('sends a file from the drop page without script: a plain form post, answered by a result page', async () => {
    const drop = await started.env.api.post('/api/user/drop-links', { key: (await started.env.createAccount()).apiKey, json: {} });
    const context = await started.browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 860 } });
    const page = await context.newPage();
    await page.goto(drop.body.data.url as string);
    await page.setInputFiles('#drop-file', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    // Said by the page's styles alone.
    expect(await page.isVisible('.drop-chosen')).to.equal(true);
    await Promise.all([page.waitForURL(drop.body.data.url as string), page.getByRole('button', { name: 'Send', exact: true }).click()]);
    await page.waitForSelector('#drop-result');
    expect(await page.textContent('h1')).to.equal('File sent');
    expect(await page.textContent('#drop-result')).to.include('notes.txt');
    await screenshot(page, 'drop-sent-light-phone');
    await context.close();
  });

  it('says what to do on an empty album', async () => {
    const { page } = await open('album-empty', 'light', 1280);
    expect(await page.textContent('.album-empty')).to.include('come back to this link later');
    expect(await page.getByRole('link', { name: /Download all/ }).count()).to.equal(0);
    await page.context().close();
  });

  for (const pageName of ['drop', 'album', 'album-empty', 'share-password', 'share-folder']) {
    for (const theme of THEMES) {
      for (const width of WIDTHS) {
        const label = `${pageName} (${theme}, ${width} px)`;
        it(`shows the ${label} accessibly, no wider than the screen`, async () => {
          const { page, target, loaded } = await open(pageName, theme, width);
          expect(await scrollsSideways(page), label).to.equal(false);
          await expectAccessible(page, label);
          await screenshot(page, width === 1280 ? `${pageName}-${theme}` : `${pageName}-${theme}-phone`);

          if (pageName === 'drop') {
            // The whole zone and the Send button fit the screen.
            for (const box of [await page.locator('#drop-zone').boundingBox(), await page.getByRole('button', { name: 'Send', exact: true }).boundingBox()]) {
              expect(box!.x).to.be.at.least(0);
              expect(box!.x + box!.width).to.be.at.most(width);
            }
          }

          if (target.tiles) {
            const tiles = page.locator('.album-grid a');
            expect(await page.locator('.album-grid .tile-name').allTextContents()).to.deep.equal(target.tiles);
            await tiles.first().click();
            const dialog = page.getByRole('dialog');
            await dialog.waitFor();
            const shown = (name: string) => page.locator('#lightbox-title .lightbox-name', { hasText: name }).waitFor();
            await shown(target.tiles[0]!);
            expect(await hasFocus(page, '.lightbox-close')).to.equal(true);
            expect(await dialog.locator('img').getAttribute('src')).to.match(/\/preview\.webp$/);
            await page.keyboard.press('ArrowRight');
            await shown(target.tiles[1]!);
            await page.keyboard.press('ArrowLeft');
            await shown(target.tiles[0]!);
            await page.keyboard.press('ArrowLeft');
            await shown(target.tiles[2]!);
            await page.keyboard.press('ArrowRight');
            await shown(target.tiles[0]!);
            // Tab stays in the dialog.
            for (let i = 0; i < 5; i++) await page.keyboard.press('Tab');
            expect(await page.locator('dialog :focus').count()).to.equal(1);
            expect(await scrollsSideways(page), `${label} lightbox`).to.equal(false);
            await expectAccessible(page, `${label} lightbox`);
            await screenshot(page, width === 1280 ? `${pageName}-lightbox-${theme}` : `${pageName}-lightbox-${theme}-phone`);
            await page.keyboard.press('Escape');
            await dialog.waitFor({ state: 'detached' });
            expect(await hasFocus(page, '.album-grid li:first-child a')).to.equal(true);
            // A share link's files count a view each time they are loaded: its page loads renditions only.
            if (pageName === 'share-folder') expect(loaded.filter((url) => url.startsWith(`${target.url}/f/`))).to.deep.equal([]);
          }
          expect(consoleErrorsOf(page).filter((e) => !e.includes('401'))).to.deep.equal([]);
          await page.context().close();
        });
      }
    }
  }
});
