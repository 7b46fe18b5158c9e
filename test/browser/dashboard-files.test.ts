import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { useBrowserEnv } from '../helpers/browser.js';
import { eventually } from '../helpers/eventually.js';
import { consoleErrorsOf, expectAccessible, openSignedIn, screenshot, signedInContext, siteUrlOf, watchConsole } from '../helpers/dashboard.js';
import { createFolder } from '../helpers/folders.js';
import { pngBytes } from '../helpers/media.js';
import type { TestEnv } from '../helpers/test-env.js';
import { makeTestMedia, type TestMedia } from '../helpers/test-media.js';
import { fileRowsOf, getWithHost, upload } from '../helpers/uploads.js';

const MiB = 1024 * 1024;
// Small enough that a file over it is quick to make; big files (tus) use a Pro account.
const FREE_MAX_FILE_SIZE = 6 * MiB;

type Account = { id: string; username: string; apiKey: string };

/** What functions run in the page use of its globals (this file compiles without the DOM library). */
type PageElement = { value: number; max: number; naturalWidth: number; complete: boolean; readyState: number; textContent: string | null };
interface PageGlobals {
  document: { querySelector(selector: string): PageElement | null; querySelectorAll(selector: string): Iterable<PageElement>; body: { dispatchEvent(event: unknown): boolean }; documentElement: { scrollWidth: number; clientWidth: number } };
  DataTransfer: new () => { items: { add(file: unknown): void } };
  File: new (parts: unknown[], name: string, options: { type: string }) => unknown;
  ClipboardEvent: new (type: string, init: object) => unknown;
  PerformanceObserver: new (callback: (list: { getEntries(): unknown[] }) => void) => { observe(options: object): void };
  requestAnimationFrame(callback: () => void): void;
  navigator: { clipboard: { readText(): Promise<string> } };
  shifts: number[];
}
interface BrowserFile {
  name: string;
  type: string;
  base64: string;
}

/** Uploads through the API with the account's key (not the page under test); answers the stored names in order. */
async function seed(env: TestEnv, account: Account, files: { name: string; bytes: Buffer }[]): Promise<string[]> {
  const names: string[] = [];
  for (const file of files) {
    const res = await upload(env, { key: account.apiKey, bytes: file.bytes, name: file.name, json: true });
    expect(res.status, res.text).to.equal(200);
    names.push(res.body.data.filename);
  }
  return names;
}

async function listed(env: TestEnv, account: Account, query = '') {
  const res = await env.api.get(`/api/user/dashboard?limit=100${query}`, { key: account.apiKey });
  expect(res.status).to.equal(200);
  return res.body.data.uploads as { filename: string; originalName: string; folderId: string | null; isPrivate: boolean; size: number; url: string }[];
}

const asBrowserFile = (name: string, bytes: Buffer, type = 'image/png'): BrowserFile => ({ name, type, base64: bytes.toString('base64') });

/** Drops files on the page as a person dragging them from their desktop would. */
async function dropFiles(page: Page, files: BrowserFile[]) {
  const dataTransfer = await page.evaluateHandle((list) => {
    const { DataTransfer, File } = globalThis as unknown as PageGlobals;
    const transfer = new DataTransfer();
    for (const f of list) transfer.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
    return transfer;
  }, files);
  for (const type of ['dragenter', 'dragover', 'drop']) await page.dispatchEvent('.dropzone', type, { dataTransfer });
}

/** Pastes files as Ctrl+V of a copied screenshot does. */
async function pasteFiles(page: Page, files: BrowserFile[]) {
  await page.evaluate((list) => {
    const { DataTransfer, File, ClipboardEvent, document } = globalThis as unknown as PageGlobals;
    const transfer = new DataTransfer();
    for (const f of list) transfer.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
    document.body.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
  }, files);
}

/** Slows uploads down (bytes per second), or lifts the limit with -1. */
async function throttleUploads(cdp: CDPSession, bytesPerSecond: number) {
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: bytesPerSecond });
}

/** A signed-in page that has not loaded anything yet: for listeners and routes set before the first load. */
async function blankSignedIn(env: TestEnv, browser: Browser, accountId: string): Promise<Page> {
  const page = await (await signedInContext(browser, env, accountId)).newPage();
  watchConsole(page);
  return page;
}
/** Waits until exactly `count` tiles are shown. */
async function waitForTiles(page: Page, count: number) {
  if (count > 0) await page.locator('.tile').nth(count - 1).waitFor();
  await page.locator('.tile').nth(count).waitFor({ state: 'detached' });
}

/** The tiles' names as shown (the original names), and their stored names, in order. */
const tileNames = (page: Page) => page.locator('.tile .tile-name').allTextContents();
const tileFilenames = (page: Page) => page.locator('.tile').evaluateAll((tiles) => tiles.map((t) => t.getAttribute('data-filename') ?? ''));
const uploadRow = (page: Page, name: string) => page.locator(`.upload-item[data-name="${name}"]`);
const folderLink = (page: Page, name: string) => page.locator('.folder-link', { has: page.locator('.folder-name', { hasText: new RegExp(`^${name}$`) }) });
const toast = (page: Page, text: string) => page.locator('.toast', { hasText: text });

describe('the dashboard: files and uploads in a real browser', function () {
  this.timeout(120_000);
  const ctx = useBrowserEnv({ env: { PLAN_FREE_MAX_FILE_SIZE: String(FREE_MAX_FILE_SIZE) } });
  let media: TestMedia;
  before(() => {
    media = makeTestMedia();
  });
  let page: Page | undefined;
  // Chromium logs every refused request as a console error: a test that provokes one on purpose says which.
  let expectedRefusals: number[] = [];
  const expectRefusal = (status: number) => expectedRefusals.push(status);

  afterEach(async function () {
    const refusals = expectedRefusals.map((status) => `Failed to load resource: the server responded with a status of ${status} `);
    expectedRefusals = [];
    if (page) {
      const errors = consoleErrorsOf(page).filter((error) => !refusals.some((refusal) => error.startsWith(refusal)));
      await page.context().close();
      page = undefined;
      // A CSP violation or an uncaught error shows up here.
      if (this.currentTest?.state === 'passed') expect(errors, 'console errors').to.deep.equal([]);
    }
  });

  describe('GET /dashboard: the files', () => {
    it('shows the files as a grid and as a list, with a type label where there is no thumbnail', async () => {
      const { env, browser } = ctx;
      const user = await env.createAccount();
      const names = await seed(env, user, [
        { name: 'sunset.png', bytes: pngBytes(900, 1) },
        { name: 'notes.txt', bytes: Buffer.from('shopping list\n') },
        { name: 'harbour.png', bytes: pngBytes(1200, 2) },
      ]);
      page = await openSignedIn(browser, env, user.id, '/dashboard');
      await page.waitForSelector('.tile');
      // Named by the original names, newest first by default; the stored name on hover.
      expect(await tileNames(page)).to.deep.equal(['harbour.png', 'notes.txt', 'sunset.png']);
      expect(await tileFilenames(page)).to.deep.equal([...names].reverse());
      expect(await page.locator(`.tile[data-filename="${names[0]}"] .tile-name`).getAttribute('title')).to.equal(names[0]);
      const text = page.locator(`.tile[data-filename="${names[1]}"]`);
      expect(await text.locator('.thumb-label').textContent()).to.equal('TXT');
      expect(await page.textContent('.file-count')).to.contain('3 files');
      await expectAccessible(page, 'grid');
      await screenshot(page, 'files-grid');

      await page.click('button:text-is("List")');
      await page.waitForSelector('.file-table');
      expect(await page.locator('.file-table tbody tr').count()).to.equal(3);
      expect(await page.getAttribute('button:text-is("List")', 'aria-pressed')).to.equal('true');
      await expectAccessible(page, 'list');
      await screenshot(page, 'files-list');
      // The choice is remembered.
      await page.reload();
      await page.waitForSelector('.file-table tbody tr');
      await page.click('button:text-is("Grid")');
      await page.waitForSelector('.file-grid .tile');
    });

    it('keeps each thumbnail’s box while the images load: nothing on the page moves', async () => {
      const { env, browser } = ctx;
      const user = await env.createAccount();
      await seed(env, user, [1, 2, 3, 4].map((i) => ({ name: `photo-${i}.png`, bytes: pngBytes(700, i) })));
      page = await blankSignedIn(env, browser, user.id);
      // The thumbnails are held back until the grid is on screen; each is a 1×1 image, which would
      // collapse any box not sized in advance.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/api/user/dashboard?**', async (route) => {
        const response = await route.fetch();
        const body = await response.json();
        for (const file of body.data.uploads) file.thumbnailUrl = `${siteUrlOf(env)}/test-thumbnails/${file.filename}`;
        await route.fulfill({ response, json: body });
      });
      await page.route('**/test-thumbnails/**', async (route) => {
        await held;
        await route.fulfill({ body: pngBytes(100, 9), contentType: 'image/png' });
      });
      await page.goto(`${siteUrlOf(env)}/dashboard`);
      await page.waitForSelector('.tile img');
      const img = page.locator('.tile img').first();
      expect(await img.getAttribute('loading')).to.equal('lazy');
      expect(await img.getAttribute('width')).to.equal('256');
      expect(await img.getAttribute('height')).to.equal('256');
      const boxes = () => page!.locator('.tile').evaluateAll((tiles) => tiles.map((t) => JSON.stringify(t.getBoundingClientRect())));
      const before = await boxes();
      await page.evaluate(() => {
        const globals = globalThis as unknown as PageGlobals;
        globals.shifts = [];
        new globals.PerformanceObserver((list) => globals.shifts.push(...list.getEntries().map((e) => (e as { value: number }).value))).observe({ type: 'layout-shift' });
      });
      release();
      await page.waitForFunction(() => [...(globalThis as unknown as PageGlobals).document.querySelectorAll('.tile img')].every((i) => i.complete && i.naturalWidth > 0));
      await page.evaluate(() => new Promise<void>((resolve) => (globalThis as unknown as PageGlobals).requestAnimationFrame(() => (globalThis as unknown as PageGlobals).requestAnimationFrame(resolve))));
      expect(await boxes()).to.deep.equal(before);
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).shifts)).to.deep.equal([]);
    });

    it('loads the next page as one scrolls to the end (30 files, 24 a page)', async () => {
      const { env, browser } = ctx;
      const user = await env.createAccount();
      await seed(env, user, Array.from({ length: 30 }, (_, i) => ({ name: `page-${i}.png`, bytes: pngBytes(300, i) })));
      page = await blankSignedIn(env, browser, user.id);
      const pages: string[] = [];
      page.on('request', (req) => {
        if (req.url().includes('/api/user/dashboard')) pages.push(new URL(req.url()).searchParams.get('page')!);
      });
      await page.goto(`${siteUrlOf(env)}/dashboard`);
      await page.waitForSelector('.tile');
      expect(await page.locator('.tile').count(), 'tiles before scrolling').to.equal(24);
      await page.locator('.tile').last().scrollIntoViewIfNeeded();
      await page.mouse.wheel(0, 5000);
      await waitForTiles(page, 30);
      expect(pages, 'pages requested').to.deep.equal(['1', '2']);
      expect(await page.textContent('.file-count')).to.contain('30 files, 30 shown');
      expect(await page.locator('.load-more').count()).to.equal(0);
      const names = await tileFilenames(page);
      expect(new Set(names).size).to.equal(30);
    });

    it('searches as one types (debounced, kept in the address) and sorts', async () => {
      const { env, browser } = ctx;
      const user = await env.createAccount();
      const [beach, snow] = await seed(env, user, [
        { name: 'holiday-beach.png', bytes: pngBytes(1000, 1) },
        { name: 'holiday-snow.png', bytes: pngBytes(3000, 2) },
        { name: 'receipt.png', bytes: pngBytes(2000, 3) },
      ]);
      page = await openSignedIn(browser, env, user.id, '/dashboard');
      await page.waitForSelector('.tile');
      const searches: string[] = [];
      page.on('request', (req) => {
        const search = new URL(req.url()).searchParams.get('search');
        if (req.url().includes('/api/user/dashboard') && search) searches.push(search);
      });
      await page.fill('#file-search', 'holi');
      await page.locator('#file-search').pressSequentially('day', { delay: 30 });
      await waitForTiles(page, 2);
      expect((await tileFilenames(page)).sort()).to.deep.equal([beach, snow].sort());
      // Not one request per key (four changes of the field): what is sent once typing pauses. A busy
      // machine may pause between the fill and the keys, and so send "holi" too.
      expect(searches.at(-1)).to.equal('holiday');
      expect(searches.length).to.be.below(3);
      expect(new URL(page.url()).searchParams.get('q')).to.equal('holiday');
      await page.fill('#file-search', 'nothing-like-this');
      await page.waitForSelector('.empty');
      expect(await page.textContent('.empty .empty-title')).to.equal('No file matches “nothing-like-this”.');

      // The empty state's way out.
      await page.getByRole('button', { name: 'Clear search' }).click();
      // The field is cleared as the page re-renders, not within the click.
      await page
        .waitForFunction(() => (globalThis as unknown as { document: { querySelector(s: string): { value: string } | null } }).document.querySelector('#file-search')?.value === '', undefined, { timeout: 5000 })
        .catch(() => undefined);
      expect(await page.inputValue('#file-search')).to.equal('');
      await waitForTiles(page, 3);
      await page.selectOption('#file-sort', 'size-desc');
      await page.waitForURL(/sort=size-desc/);
      await page.locator('.tile').first().locator('.tile-facts:text-matches("^2.9 KB")').waitFor();
      const sizes = await page.locator('.tile .tile-facts').allTextContents();
      expect(sizes.map((s) => s.split(' · ')[0])).to.deep.equal(['2.9 KB', '2.0 KB', '1000 B']);
      await page.selectOption('#file-sort', 'filename-asc');
      await page.waitForURL(/sort=filename-asc/);
      await page.waitForFunction(() => {
        const names = [...(globalThis as unknown as PageGlobals).document.querySelectorAll('.tile')].map((n) => (n as unknown as { dataset: { filename: string } }).dataset.filename);
        return names.join() === [...names].sort().join();
      });
      await screenshot(page, 'files-sorted');
    });
  });

  describe('folders', () => {
    it('narrows the files to a folder from the sidebar; creates and deletes folders', async () => {
      const { env, browser } = ctx;
      const user = await env.createAccount();
      const [inFolder, outside] = await seed(env, user, [
        { name: 'in-folder.png', bytes: pngBytes(500, 1) },
        { name: 'outside.png', bytes: pngBytes(500, 2) },
      ]);
      const trips = await createFolder(env, user, 'Trips');
      await env.api.patch(`/api/user/images/${inFolder}/move`, { key: user.apiKey, json: { folderId: trips } });
      page = await openSignedIn(browser, env, user.id, '/dashboard');
      await page.waitForSelector('.tile');
      // Each folder with its count: all files, those outside every folder, each folder's.
      await page.getByRole('link', { name: 'All files 2 files' }).waitFor();
      await page.getByRole('link', { name: 'Not in a folder 1 file' }).waitFor();

      await page.getByRole('link', { name: 'Trips 1 file' }).click();
      await page.waitForURL(new RegExp(`folder=${trips}`));
      await waitForTiles(page, 1);
      expect(await tileFilenames(page)).to.deep.equal([inFolder]);
      expect(await page.textContent('h1')).to.equal('Files: Trips');
      expect(await folderLink(page, 'Trips').getAttribute('aria-current')).to.equal('page');
      await folderLink(page, 'Not in a folder').click();
      await page.locator(`.tile[data-filename="${outside}"]`).waitFor();
      await waitForTiles(page, 1);
      await folderLink(page, 'All files').click();
      await waitForTiles(page, 2);

      // Create one with the keyboard.
      await page.focus('#new-folder');
      await page.keyboard.type('Receipts');
      await page.keyboard.press('Enter');
      await page.getByRole('link', { name: 'Receipts 0 files' }).waitFor();
      await toast(page, 'Folder Receipts created.').waitFor();
      const folders = (await env.api.get('/api/user/folders', { key: user.apiKey })).body.data as { id: string; name: string }[];
      expect(folders.map((f) => f.name).sort()).to.deep.equal(['Receipts', 'Trips']);
      // A second with the same name: the API's reason, on the page.
      expectRefusal(409);
      await page.fill('#new-folder', 'receipts');
      await page.click('.new-folder button[type=submit]');
      await page.waitForSelector('.folders .status.error');
      expect(await page.textContent('.folders .status.error')).to.match(/already|exists|taken|in use/i);
      await expectAccessible(page, 'folders');

      // Delete the folder being looked at, from its menu: its file goes to the root, the view to all files.
      await folderLink(page, 'Trips').click();
      await waitForTiles(page, 1);
      await page.getByRole('button', { name: 'Folder actions: Trips' }).click();
      await page.getByRole('menuitem', { name: 'Delete' }).click();
      await page.waitForSelector('dialog[open]');
      await screenshot(page, 'folder-delete-confirm');
      await page.click('dialog[open] button:text-is("Delete folder")');
      await folderLink(page, 'Trips').waitFor({ state: 'detached' });
      await toast(page, 'Folder Trips deleted; its files are in the root library.').waitFor();
      await page.waitForURL(`${siteUrlOf(env)}/dashboard`);
      await waitForTiles(page, 2);
      const files = await listed(env, user);
      expect(files.find((f) => f.filename === inFolder)!.folderId).to.equal(null);
      await page.getByRole('link', { name: 'Not in a folder 2 files' }).waitFor();
    });

    it('opens the Settings of a folder from its menu, with the keyboard', async () => {
      const { env, browser } = ctx;
      const user = await env.createAccount({ plan: 'pro' });
      await createFolder(env, user, 'Shared');
      page = await openSignedIn(browser, env, user.id, '/dashboard');
      const menuButton = page.getByRole('button', { name: 'Folder actions: Shared' });
      expect(await menuButton.getAttribute('aria-haspopup')).to.equal('menu');
      expect(await menuButton.getAttribute('aria-expanded')).to.equal('false');
      await menuButton.focus();
      await page.keyboard.press('Enter');
      const menu = page.getByRole('menu', { name: 'Folder actions: Shared' });
      await menu.waitFor();
      expect(await menuButton.getAttribute('aria-expanded')).to.equal('true');
      expect(await menu.getByRole('menuitem').allTextContents()).to.deep.equal(['Settings', 'Share', 'Delete']);
      // The first item has the keyboard; the arrows move round, Escape closes and goes back to the button.
      expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string } } }).document.activeElement.textContent)).to.equal('Settings');
      await page.keyboard.press('ArrowUp');
      expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string } } }).document.activeElement.textContent)).to.equal('Delete');
      await page.keyboard.press('Escape');
      await menu.waitFor({ state: 'detached' });
      expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string } } }).document.activeElement.getAttribute('aria-label'))).to.equal('Folder actions: Shared');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await page.getByRole('dialog', { name: 'Folder settings: Shared' }).waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
    });
  });

  describe('selecting many files', () => {
    it('moves the selected files to a folder, then deletes the selected ones after asking', async () => {
      const { env, browser } = ctx;
      const user = await env.createAccount();
      const names = await seed(env, user, [1, 2, 3, 4].map((i) => ({ name: `many-${i}.png`, bytes: pngBytes(400, i) })));
      const archive = await createFolder(env, user, 'Archive');
      page = await openSignedIn(browser, env, user.id, '/dashboard');
      await page.waitForSelector('.tile');
      // With the keyboard: Tab onto a checkbox, Space ticks it.
      await page.focus(`.tile[data-filename="${names[0]}"] .select-file`);
      await page.keyboard.press('Space');
      await page.check(`.tile[data-filename="${names[1]}"] .select-file`);
      expect(await page.textContent('.select-all')).to.equal('2 selected');
      await page.selectOption('#move-target', archive);
      await page.click('.selection-bar button:text-is("Move")');
      await toast(page, 'Moved 2 files to Archive.').waitFor();
      const afterMove = await listed(env, user);
      expect(afterMove.filter((f) => f.folderId === archive).map((f) => f.filename).sort()).to.deep.equal([names[0], names[1]].sort());

      // Select all, untick one, delete the rest.
      await page.check('.select-all input');
      expect(await page.textContent('.select-all')).to.equal('4 selected');
      await page.uncheck(`.tile[data-filename="${names[3]}"] .select-file`);
      // No question first: the toast's Undo holds the delete back; closing it sends the deletes.
      await page.click('.selection-bar button:text-is("Delete")');
      await toast(page, 'Deleted 3 files.').waitFor();
      await waitForTiles(page, 1);
      expect(await tileFilenames(page)).to.deep.equal([names[3]]);
      await expectAccessible(page, 'deleted, with Undo');
      await toast(page, 'Deleted 3 files.').getByRole('button', { name: 'Dismiss message' }).click();
      await eventually(async () => (await fileRowsOf(env, user.id)).length === 1);
      expect((await listed(env, user)).map((f) => f.filename)).to.deep.equal([names[3]]);
    });
  });

  describe('one file’s actions', () => {
    it('renames (the API’s refusal in its words), replaces and makes a file private from the Actions dialog', async () => {
      const { env, browser } = ctx;
      const user = await env.createAccount();
      const [other, name] = await seed(env, user, [
        { name: 'other.png', bytes: pngBytes(700, 2) },
        { name: 'before.png', bytes: pngBytes(800, 1) },
      ]);
      page = await openSignedIn(browser, env, user.id, '/dashboard');
      await page.waitForSelector('.tile');
      await page.click('button:has-text("Actions for before.png")');
      const dialog = page.locator('dialog[open]');
      await dialog.waitFor();
      expect(await dialog.getByLabel('Stored name').inputValue()).to.equal(name);
      await expectAccessible(page, 'actions dialog');
      await screenshot(page, 'file-actions-dialog');

      expectRefusal(400);
      await dialog.getByLabel('Stored name').fill('no-extension');
      await dialog.locator('button:text-is("Rename")').click();
      await dialog.locator('.status.error').waitFor();
      expect(await dialog.locator('.status.error').textContent()).to.equal('The new name must have a name and an extension, e.g. holiday.png');
      expectRefusal(409);
      await dialog.getByLabel('Stored name').fill(other!);
      await dialog.locator('button:text-is("Rename")').click();
      await dialog.locator(`.status.error:text-is("You already have a file named ${other}")`).waitFor();
      await dialog.getByLabel('Stored name').fill('after rename.png');
      await dialog.locator('button:text-is("Rename")').click();
      await dialog.locator('.toast:has-text("Renamed to after-rename.png.")').waitFor();
      await page.waitForSelector('.tile[data-filename="after-rename.png"]');
      expect((await listed(env, user)).map((f) => f.filename).sort()).to.deep.equal(['after-rename.png', other].sort());

      const replacement = path.join(env.dataDir, 'replacement.png');
      await writeFile(replacement, pngBytes(5000, 7));
      await dialog.getByLabel('Choose the new file').setInputFiles(replacement);
      await dialog.getByText('replacement.png').waitFor();
      await dialog.locator('button:text-is("Replace")').click();
      await dialog.locator('.toast:has-text("Replaced")').waitFor();
      const renamed = async () => (await listed(env, user)).find((f) => f.filename === 'after-rename.png')!;
      expect((await renamed()).size).to.equal(5000);
      await page.locator('.tile[data-filename="after-rename.png"] .tile-facts:text-matches("^4.9 KB")').waitFor();

      await dialog.getByLabel('Private (only signed links open it)').check();
      await dialog.locator('.toast:has-text("Private: only signed links open it now.")').waitFor();
      expect((await renamed()).isPrivate).to.equal(true);
      await page.waitForSelector('.tile[data-filename="after-rename.png"] .tag:text-is("Private")');
      // The link the dialog now shows is the signed one, which opens the private file.
      const link = await dialog.locator('input[data-format="url"]').inputValue();
      expect(link).to.contain('signature=');
      expect((await getWithHost(link)).status).to.equal(200);
      await page.keyboard.press('Escape');
      await page.waitForSelector('dialog[open]', { state: 'detached' });
    });

    it('copies the link as Link, Markdown, HTML and BBCode', async () => {
      const { env, browser } = ctx;
      const user = await env.createAccount();
      const [name] = await seed(env, user, [{ name: 'share-me.png', bytes: pngBytes(600, 3) }]);
      const [file] = await listed(env, user);
      page = await openSignedIn(browser, env, user.id, '/dashboard');
      await page.waitForSelector('.tile');
      const clipboard = () => page!.evaluate(() => (globalThis as unknown as PageGlobals).navigator.clipboard.readText());

      expect(name).to.not.equal('share-me.png');
      await page.click('button:has-text("Copy link to share-me.png")');
      await toast(page, 'Link to share-me.png copied.').waitFor();
      expect(await clipboard()).to.equal(file!.url);

      await page.click('button:has-text("Actions for share-me.png")');
      const dialog = page.locator('dialog[open]');
      const expected: Record<string, string> = {
        Link: file!.url,
        Markdown: `![share-me.png](${file!.url})`,
        HTML: `<img src="${file!.url}" alt="share-me.png">`,
        BBCode: `[img]${file!.url}[/img]`,
      };
      for (const [label, text] of Object.entries(expected)) {
        await dialog.getByRole('button', { name: `Copy ${label}`, exact: true }).click();
        await dialog.locator(`.copy-said:text-is("Copied the ${label}.")`).waitFor();
        expect(await clipboard(), label).to.equal(text);
        // The same text is on screen, for copying by hand.
        expect(await dialog.getByLabel(label, { exact: true }).inputValue()).to.equal(text);
      }
    });

    it('shows a file’s own page: preview, facts, links and actions; deleting it goes back to the files', async () => {
      const { env, browser } = ctx;
      const user = await env.createAccount();
      const [name, clip] = await seed(env, user, [
        { name: 'viewed.jpg', bytes: media.read('still.jpg') },
        { name: 'clip.mp4', bytes: media.read('clip.mp4') },
      ]);
      const file = (await listed(env, user)).find((f) => f.filename === name);
      page = await openSignedIn(browser, env, user.id, '/dashboard');
      await page.click(`.tile[data-filename="${name}"] .tile-name`);
      await page.waitForURL(`${siteUrlOf(env)}/dashboard/files/${name}`);
      await page.waitForSelector('.facts');
      // Named by its original name; the stored one is among the facts.
      expect(await page.textContent('h1')).to.equal('viewed.jpg');
      expect(await page.getAttribute('.preview img', 'src')).to.equal(file!.url);
      await page.waitForFunction(() => ((globalThis as unknown as PageGlobals).document.querySelector('.preview img')?.naturalWidth ?? 0) > 0);
      const facts = Object.fromEntries(
        await page.locator('.facts dt').evaluateAll((dts) => dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])),
      ) as Record<string, string>;
      expect(facts).to.include({ 'Stored name': name, Type: 'image/jpeg', Updated: 'Never replaced', Expires: 'Never', Source: 'API key', Private: 'No', Folder: 'Root library' });
      expect(facts.Size).to.match(/^\d+(\.\d)? KB$/);
      expect(await page.inputValue('.file-page input[data-format="markdown"]')).to.equal(`![viewed.jpg](${file!.url})`);
      await expectAccessible(page, 'file page');
      await screenshot(page, 'file-page');

      // Opened directly (a reload, a shared link), the page finds the file again.
      await page.reload();
      await page.waitForSelector('.facts');
      await page.click('.file-page button:text-is("Delete file")');
      await page.waitForURL(`${siteUrlOf(env)}/dashboard`);
      await waitForTiles(page, 1);
      await toast(page, 'Deleted viewed.jpg.').getByRole('button', { name: 'Dismiss message' }).click();
      await eventually(async () => (await fileRowsOf(env, user.id)).length === 1);

      await page.goto(`${siteUrlOf(env)}/dashboard/files/${name}`);
      await page.waitForSelector('.file-page .status.error');
      expect(await page.textContent('.file-page .status.error')).to.contain('There is no such file in your library');

      // A video plays in place.
      await page.goto(`${siteUrlOf(env)}/dashboard/files/${clip}`);
      await page.waitForSelector('.preview video');
      // From the site's own origin (/u/{username}/…): the page's CSP plays media from there only.
      expect(await page.getAttribute('.preview video', 'src')).to.equal(`/u/${user.username}/${clip}`);
      await page.waitForFunction(() => ((globalThis as unknown as PageGlobals).document.querySelector('.preview video')?.readyState ?? 0) >= 1);
      expect(await page.textContent('.facts')).to.contain('video/mp4');
      await expectAccessible(page, 'video file page');
    });
  });

  describe('uploading from the dashboard', () => {
    it('uploads several dropped files with a progress bar each; one cancelled mid-way and retried', async () => {
      const { env, browser } = ctx;
      const user = await env.createAccount();
      page = await openSignedIn(browser, env, user.id, '/dashboard');
      await page.waitForSelector('.empty');
      const cdp = await page.context().newCDPSession(page);
      await throttleUploads(cdp, 400 * 1024);
      const big = pngBytes(3 * MiB, 5);
      await dropFiles(page, [asBrowserFile('first.png', pngBytes(900, 1)), asBrowserFile('second.png', pngBytes(1100, 2)), asBrowserFile('slow.png', big)]);
      // The slow one reports its progress as it goes; Cancel stops it there.
      await page.waitForFunction(() => {
        const bar = (globalThis as unknown as PageGlobals).document.querySelector('.upload-item[data-name="slow.png"] progress');
        return bar !== null && bar.value > 0 && bar.value < bar.max;
      });
      expect(await uploadRow(page, 'slow.png').locator('.upload-state').textContent()).to.match(/^Uploading, \d+%$/);
      await screenshot(page, 'upload-progress');
      await uploadRow(page, 'slow.png').locator('button.cancel').click();
      await uploadRow(page, 'slow.png').locator('.upload-state:text-is("Cancelled")').waitFor();
      // Finished ones fold into the summary, so the grid stays in view.
      await page.locator('.upload-summary p:text-is("2 files uploaded.")').waitFor();
      expect(await page.locator('.upload-item').count()).to.equal(1);
      expect(await fileRowsOf(env, user.id)).to.have.length(2);

      await throttleUploads(cdp, -1);
      await uploadRow(page, 'slow.png').locator('button.retry').click();
      await page.locator('.upload-summary p:text-is("3 files uploaded.")').waitFor();
      expect(await page.locator('.upload-item').count()).to.equal(0);
      // Opened again on demand, each card says it is uploaded.
      await page.getByRole('button', { name: 'Show uploaded' }).click();
      for (const name of ['first.png', 'second.png', 'slow.png']) await uploadRow(page, name).locator('.upload-state:text-is("Uploaded")').waitFor();
      expect(await page.getByRole('button', { name: 'Hide uploaded' }).getAttribute('aria-expanded')).to.equal('true');
      const rows = await fileRowsOf(env, user.id);
      expect(rows.map((r) => r.originalName).sort()).to.deep.equal(['first.png', 'second.png', 'slow.png']);
      expect(rows.find((r) => r.originalName === 'slow.png')!.size).to.equal(big.length);
      // New files appear in the grid without a reload; the latest link is the result.
      await waitForTiles(page, 3);
      const slow = rows.find((r) => r.originalName === 'slow.png')!;
      expect(await page.getAttribute('#result-url', 'href')).to.match(new RegExp(`/${slow.filename}$`));
      await expectAccessible(page, 'uploads');
      await screenshot(page, 'upload-done');
    });

    it('uploads pasted files (Ctrl+V) into the folder being looked at', async () => {
      const { env, browser } = ctx;
      const user = await env.createAccount();
      const inbox = await createFolder(env, user, 'Inbox');
      page = await openSignedIn(browser, env, user.id, `/dashboard?folder=${inbox}`);
      await page.waitForSelector('.empty');
      await pasteFiles(page, [asBrowserFile('image.png', pngBytes(1500, 6))]);
      await page.locator('.upload-summary p:text-is("1 file uploaded.")').waitFor();
      await page.getByRole('button', { name: 'Show uploaded' }).click();
      const row = page.locator('.upload-item');
      await row.locator('.upload-state:text-is("Uploaded")').waitFor();
      expect(await row.getAttribute('data-name')).to.match(/^pasted-\d{8}-\d{6}\.png$/);
      await waitForTiles(page, 1);
      const [file] = await listed(env, user);
      expect(file!.folderId).to.equal(inbox);
      expect(file!.originalName).to.match(/^pasted-/);
    });

    it('sends a big file resumably (tus) with Pause and Resume', async () => {
      const { env, browser } = ctx;
      const pro = await env.createAccount({ plan: 'pro' });
      page = await openSignedIn(browser, env, pro.id, '/dashboard');
      await page.waitForSelector('.empty');
      const requests: string[] = [];
      page.on('request', (req) => {
        if (new URL(req.url()).pathname.startsWith('/api/uploads')) requests.push(`${req.method()} ${new URL(req.url()).pathname.endsWith('/result') ? 'result' : ''}`.trim());
      });
      const cdp = await page.context().newCDPSession(page);
      await throttleUploads(cdp, 6 * MiB);
      const file = path.join(env.dataDir, 'big-dashboard.png');
      const bytes = pngBytes(17 * MiB, 8);
      await writeFile(file, bytes);
      await page.selectOption('#expiry', '7d');
      await page.setInputFiles('#file', file);
      const row = uploadRow(page, 'big-dashboard.png');
      await row.locator('button.pause').waitFor();
      await page.waitForFunction(() => ((globalThis as unknown as PageGlobals).document.querySelector('.upload-item progress')?.value ?? 0) > 0);
      await row.locator('button.pause').click();
      await row.locator('.upload-state:text-matches("^Paused at \\\\d+%$")').waitFor();
      expect(await row.locator('button.pause').textContent()).to.contain('Resume');
      await screenshot(page, 'upload-paused');
      await throttleUploads(cdp, -1);
      await row.locator('button.pause').click();
      await page.locator('.upload-summary p:text-is("1 file uploaded.")').waitFor({ timeout: 60_000 });
      const [stored] = await fileRowsOf(env, pro.id);
      expect(stored).to.include({ source: 'tus', expiry: '7d', size: bytes.length, originalName: 'big-dashboard.png' });
      expect(requests).to.include.members(['POST', 'PATCH', 'HEAD', 'GET result']);
      expect(await page.getAttribute('#result-url', 'href')).to.match(new RegExp(`/${stored!.filename}$`));
    });

    it('says in plain words why a file was not taken: over the plan’s size, before sending or from the server', async () => {
      const { env, browser } = ctx;
      const user = await env.createAccount();
      page = await openSignedIn(browser, env, user.id, '/dashboard');
      await page.waitForSelector('.empty');
      const file = path.join(env.dataDir, 'too-big.png');
      await writeFile(file, pngBytes(FREE_MAX_FILE_SIZE + 512 * 1024, 3));
      await page.setInputFiles('#file', file);
      const row = uploadRow(page, 'too-big.png');
      await row.locator('.status.error').waitFor();
      expect(await row.locator('.status.error').textContent()).to.equal('Too large: this file is 6.5 MB and your plan takes files up to 6.0 MB.');
      expect(await row.locator('button.retry').count()).to.equal(0);
      await screenshot(page, 'upload-too-large');

      // The upload page does not know a signed-in account's plan: the server's 413 says it.
      expectRefusal(413);
      await page.goto(`${siteUrlOf(env)}/`);
      await page.setInputFiles('#file', file);
      await row.locator('.status.error').waitFor();
      expect(await row.locator('.status.error').textContent()).to.equal('Too large: the file is larger than the limit of 6.0 MB.');
      expect(await fileRowsOf(env, user.id)).to.have.length(0);
    });
  });

  describe('at phone width (390×844)', () => {
    it('fits the screen: two tiles a row, no sideways scrolling, the dialogs within reach', async () => {
      const { env, browser } = ctx;
      const user = await env.createAccount();
      const [name] = await seed(env, user, [1, 2, 3].map((i) => ({ name: `phone-${i}-with-a-rather-long-name-to-wrap.png`, bytes: pngBytes(500, i) })));
      await createFolder(env, user, 'Phone pictures');
      page = await openSignedIn(browser, env, user.id, '/dashboard', { viewport: { width: 390, height: 844 } });
      await page.waitForSelector('.tile');
      const overflow = () =>
        page!.evaluate(() => {
          const { documentElement } = (globalThis as unknown as PageGlobals).document;
          return documentElement.scrollWidth - documentElement.clientWidth;
        });
      expect(await overflow()).to.equal(0);
      const tops = await page.locator('.tile').evaluateAll((tiles) => tiles.map((t) => Math.round(t.getBoundingClientRect().top)));
      expect(tops[0]).to.equal(tops[1]);
      expect(tops[2]).to.be.above(tops[0]!);
      await expectAccessible(page, 'phone grid');
      await screenshot(page, 'phone-grid');

      await page.click('button:text-is("List")');
      await page.waitForSelector('.file-table');
      expect(await overflow()).to.equal(0);
      await screenshot(page, 'phone-list');

      await page.click('button:has-text("Actions for phone-1-with-a-rather-long-name-to-wrap.png")');
      const dialog = page.locator('dialog[open]');
      await dialog.waitFor();
      const box = (await dialog.boundingBox())!;
      expect(box.x).to.be.at.least(0);
      expect(box.x + box.width).to.be.at.most(390);
      await screenshot(page, 'phone-actions');
      await page.keyboard.press('Escape');

      await page.click(`a[href="/dashboard/files/${name}"]`);
      await page.waitForSelector('.facts');
      expect(await overflow()).to.equal(0);
      await expectAccessible(page, 'phone file page');
      await screenshot(page, 'phone-file-page');
    });
  });
});
