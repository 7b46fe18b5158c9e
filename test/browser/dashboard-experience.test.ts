import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { THEME_COOKIE } from '../../api/site/views/theme.js';
import { files } from '../../shared/db/schema.js';
import { useBrowserEnv } from '../helpers/browser.js';
import { consoleErrorsOf, expectAccessible, screenshot, signedInContext, siteUrlOf, watchConsole } from '../helpers/dashboard.js';
import { eventually } from '../helpers/eventually.js';
import { createFolder } from '../helpers/folders.js';
import type { TestEnv } from '../helpers/test-env.js';
import { upload } from '../helpers/uploads.js';

// The dashboard as a person meets it (issue 39): tiles named as uploaded, counts and menus for the
// folders, toasts with Undo, uploads that fold away or fail visibly, the lightbox, a Free account's
// settings, the keyboard alone, and every page in both themes at both widths.

type Account = { id: string; username: string; apiKey: string };
type Theme = 'light' | 'dark';

const THEMES: Theme[] = ['light', 'dark'];
const WIDTHS = [1280, 390] as const;
const PRO_ONLY = ['/api/user/custom-domain', '/api/user/folder-keys'];

/** A photo-like image of one colour fading to another, JPEG or PNG as `name` says (sharp, so it gets real thumbnails). */
function photo(name: string, width: number, height: number, from: string, to: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/><circle cx="${width * 0.7}" cy="${height * 0.35}" r="${height * 0.12}" fill="#fff8"/></svg>`;
  const image = sharp(Buffer.from(svg));
  return (name.endsWith('.jpg') ? image.jpeg() : image.png()).toBuffer();
}

/** Uploads with the account's key, runs the thumbnail job at once; answers the stored names in order. */
async function seed(env: TestEnv, account: Account, uploads: { name: string; bytes: Buffer; folderId?: string }[]): Promise<string[]> {
  const names: string[] = [];
  for (const file of uploads) {
    const res = await upload(env, { key: account.apiKey, bytes: file.bytes, name: file.name, json: true });
    expect(res.status, res.text).to.equal(200);
    const filename = res.body.data.filename as string;
    if (file.folderId) expect((await env.api.patch(`/api/user/images/${filename}/move`, { key: account.apiKey, json: { folderId: file.folderId } })).status).to.equal(200);
    const [row] = await env.container.db.select().from(files).where(eq(files.filename, filename));
    if (row!.mimeType.startsWith('image/')) await env.container.services.thumbnails.make(row!.id, row!.objectKey);
    names.push(filename);
  }
  return names;
}

async function photos(count: number): Promise<{ name: string; bytes: Buffer }[]> {
  const scenes = [
    ['mountain-photo.jpg', '#2f6fd0', '#9fd3ff'],
    ['harbour-at-dusk.png', '#d0602f', '#402060'],
    ['forest-walk.png', '#1f7a3a', '#c8e6a0'],
    ['desert-dunes.png', '#d0a030', '#f5e0b0'],
    ['city-lights.png', '#202040', '#e0a040'],
    ['lake-morning.png', '#60a0c0', '#f0f0e0'],
  ] as const;
  return Promise.all(scenes.slice(0, count).map(async ([name, from, to], i) => ({ name, bytes: await photo(name, 800 + i * 40, 600, from, to) })));
}

async function listed(env: TestEnv, account: Account) {
  const res = await env.api.get('/api/user/dashboard?limit=100', { key: account.apiKey });
  return res.body.data.uploads as { filename: string; originalName: string; folderId: string | null }[];
}

/** The element that has the keyboard, described by a selector it matches. */
const focusMatches = (page: Page, selector: string) => page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector);

/** Presses Tab (Shift+Tab with `back`) until the keyboard is on what `selector` matches. */
async function tabTo(page: Page, selector: string, { back = false, max = 80 } = {}) {
  for (let i = 0; i < max; i++) {
    if (await focusMatches(page, selector)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

const toast = (page: Page, text: string) => page.locator('.toast', { hasText: text });
const tileNames = (page: Page) => page.locator('.tile .tile-name').allTextContents();

describe('the dashboard as a person meets it', function () {
  this.timeout(180_000);
  const ctx = useBrowserEnv();
  let page: Page | undefined;
  // Chromium logs every refused request as a console error: a test that provokes one says which.
  let expectedRefusals: number[] = [];

  afterEach(async function () {
    const refusals = expectedRefusals.map((status) => `Failed to load resource: the server responded with a status of ${status} `);
    expectedRefusals = [];
    if (!page) return;
    const errors = consoleErrorsOf(page).filter((error) => !refusals.some((refusal) => error.startsWith(refusal)));
    await page.context().close();
    page = undefined;
    if (this.currentTest?.state === 'passed') expect(errors, 'console errors').to.deep.equal([]);
  });

  /** A signed-in page in `theme` at `width`, not yet loaded unless `path` is given. */
  async function open(account: Account, pathname: string | null, { theme, width = 1280 }: { theme?: Theme; width?: number } = {}): Promise<Page> {
    const { env, browser } = ctx;
    const context = await signedInContext(browser, env, account.id, { viewport: { width, height: 860 } });
    if (theme) await context.addCookies([{ name: THEME_COOKIE, value: theme, url: siteUrlOf(env) }]);
    const opened = await context.newPage();
    watchConsole(opened);
    if (pathname !== null) await opened.goto(`${siteUrlOf(env)}${pathname}`);
    return opened;
  }

  describe('the files', () => {
    it('names tiles by their original names, with the stored name on hover and on the file page', async () => {
      const { env } = ctx;
      const user = await env.createAccount();
      const [stored] = await seed(env, user, await photos(1));
      page = await open(user, '/dashboard');
      await page.locator('.tile').waitFor();
      expect(stored).to.match(/^[A-Za-z0-9]{10}\.jpg$/);
      expect(await tileNames(page)).to.deep.equal(['mountain-photo.jpg']);
      expect(await page.locator('.tile .tile-name').getAttribute('title')).to.equal(stored);
      expect(await page.getByRole('checkbox', { name: 'Select mountain-photo.jpg' }).count()).to.equal(1);

      await page.click('.tile .tile-name');
      await page.waitForURL(`${siteUrlOf(env)}/dashboard/files/${stored}`);
      await page.locator('.facts').waitFor();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal('mountain-photo.jpg');
      const storedFact = page.locator('.facts dt:text-is("Stored name") + dd');
      expect(await storedFact.textContent()).to.equal(stored);
    });

    it('shows no bulk toolbar without files, an empty state that says what to do, and Select all alone until something is chosen', async () => {
      const { env } = ctx;
      const user = await env.createAccount();
      page = await open(user, '/dashboard');
      const empty = page.locator('.empty');
      await empty.waitFor();
      expect(await empty.locator('.empty-title').textContent()).to.equal('No files yet');
      expect(await empty.textContent()).to.contain('Drop files anywhere on this page');
      expect(await page.getByRole('group', { name: 'Selected files' }).count()).to.equal(0);
      // Its button opens the uploader's own chooser.
      const chooser = page.waitForEvent('filechooser');
      await empty.getByRole('button', { name: 'Choose files' }).click();
      await (await chooser).setFiles({ name: 'first.png', mimeType: 'image/png', buffer: (await photos(2))[1]!.bytes });
      await page.locator('.tile').waitFor();

      const bar = page.getByRole('group', { name: 'Selected files' });
      await bar.waitFor();
      expect(await bar.getByRole('checkbox', { name: 'Select all' }).count()).to.equal(1);
      expect(await bar.getByRole('button').count()).to.equal(0);
      await page.getByRole('checkbox', { name: 'Select first.png' }).check();
      await bar.getByRole('button', { name: 'Move' }).waitFor();
      expect(await bar.getByRole('button').allTextContents()).to.deep.equal(['Move', 'Delete', 'Clear']);

      // An empty folder and a search without results say so, and what to do.
      const trips = await createFolder(env, user, 'Trips');
      await page.goto(`${siteUrlOf(env)}/dashboard?folder=${trips}`);
      await empty.waitFor();
      expect(await empty.locator('.empty-title').textContent()).to.equal('Trips is empty.');
      expect(await page.getByRole('group', { name: 'Selected files' }).count()).to.equal(0);
      await page.goto(`${siteUrlOf(env)}/dashboard?q=nothing`);
      await empty.waitFor();
      expect(await empty.locator('.empty-title').textContent()).to.equal('No file matches “nothing”.');
    });
  });

  describe('folders', () => {
    it('counts the files beside each folder, and keeps the counts as files move', async () => {
      const { env } = ctx;
      const user = await env.createAccount();
      const trips = await createFolder(env, user, 'Trips');
      await createFolder(env, user, 'Receipts');
      const [first] = await seed(env, user, (await photos(3)).map((p, i) => ({ ...p, ...(i < 2 ? { folderId: trips } : {}) })));
      page = await open(user, '/dashboard');
      const folders = page.getByRole('navigation', { name: 'Folders' });
      for (const name of ['All files 3 files', 'Not in a folder 1 file', 'Trips 2 files', 'Receipts 0 files']) await folders.getByRole('link', { name }).waitFor();
      // No permanent buttons: one menu per folder.
      expect(await folders.getByRole('button', { name: /Settings|Delete/ }).count()).to.equal(0);
      expect(await folders.getByRole('button', { name: /^Folder actions: / }).count()).to.equal(2);

      await page.getByRole('checkbox', { name: `Select ${(await listed(env, user)).find((f) => f.filename === first)!.originalName}` }).check();
      await page.selectOption('#move-target', { label: 'Receipts' });
      await page.getByRole('group', { name: 'Selected files' }).getByRole('button', { name: 'Move' }).click();
      await folders.getByRole('link', { name: 'Receipts 1 file' }).waitFor();
      await folders.getByRole('link', { name: 'Trips 1 file' }).waitFor();
      await expectAccessible(page, 'folders with counts');
    });
  });

  describe('toasts and Undo', () => {
    it('says a move in a toast whose Undo moves the file back; no status line stays behind', async () => {
      const { env } = ctx;
      const user = await env.createAccount();
      const archive = await createFolder(env, user, 'Archive');
      const [stored] = await seed(env, user, await photos(1));
      page = await open(user, '/dashboard?folder=root');
      await page.locator('.tile').waitFor();
      await page.getByRole('checkbox', { name: 'Select mountain-photo.jpg' }).check();
      await page.selectOption('#move-target', archive);
      await page.getByRole('button', { name: 'Move', exact: true }).click();
      const moved = toast(page, 'Moved mountain-photo.jpg to Archive.');
      await moved.waitFor();
      // Pointed at, it stays while we look.
      await moved.hover();
      // It left this view (the root library), and the toast is read out politely.
      await page.locator('.tile').waitFor({ state: 'detached' });
      expect(await page.locator('.toasts').getAttribute('role')).to.equal('status');
      expect(await page.locator('.toasts').getAttribute('aria-live')).to.equal('polite');
      expect((await listed(env, user))[0]!.folderId).to.equal(archive);
      await expectAccessible(page, 'move toast');
      await screenshot(page, 'dashboard-move-toast');

      await moved.getByRole('button', { name: 'Undo' }).click();
      await toast(page, 'Moved mountain-photo.jpg back.').waitFor();
      await page.locator(`.tile[data-filename="${stored}"]`).waitFor();
      expect((await listed(env, user))[0]!.folderId).to.equal(null);

      // Once the toasts are gone, changing folder leaves no "Moved …" line on the page.
      while ((await page.locator('.toast').count()) > 0) await page.locator('.toast').first().getByRole('button', { name: 'Dismiss message' }).click();
      await page.getByRole('link', { name: /^Archive / }).click();
      await page.locator('.empty').waitFor();
      expect(await page.getByText(/Moved /).count()).to.equal(0);
    });

    it('holds a delete back while its toast offers Undo: Undo keeps the file and nothing is deleted', async () => {
      const { env } = ctx;
      const user = await env.createAccount();
      const [kept, gone] = await seed(env, user, await photos(2));
      page = await open(user, '/dashboard');
      const deletes: string[] = [];
      page.on('request', (req) => req.method() === 'DELETE' && deletes.push(new URL(req.url()).pathname));
      await page.locator('.tile').nth(1).waitFor();

      await page.getByRole('checkbox', { name: 'Select mountain-photo.jpg' }).check();
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      const deleted = toast(page, 'Deleted mountain-photo.jpg.');
      await deleted.waitFor();
      await page.locator(`.tile[data-filename="${kept}"]`).waitFor({ state: 'detached' });
      await page.getByRole('link', { name: 'All files 1 file' }).waitFor();
      await deleted.getByRole('button', { name: 'Undo' }).click();
      await toast(page, 'Kept mountain-photo.jpg.').waitFor();
      await page.locator(`.tile[data-filename="${kept}"]`).waitFor();
      await page.getByRole('link', { name: 'All files 2 files' }).waitFor();

      // Leaving the page sends what is still waiting, and only that.
      await page.getByRole('checkbox', { name: 'Select harbour-at-dusk.png' }).check();
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await toast(page, 'Deleted harbour-at-dusk.png.').waitFor();
      await page.goto(`${siteUrlOf(env)}/dashboard/settings`);
      await eventually(async () => (await listed(env, user)).length === 1);
      expect((await listed(env, user)).map((f) => f.filename)).to.deep.equal([kept]);
      expect(deletes.filter((p) => p !== `/api/user/images/${gone}`)).to.deep.equal([]);
    });
  });

  describe('uploads', () => {
    it('shows a failed upload as failed, in red without a full progress bar, and Retry sends it again', async () => {
      const { env } = ctx;
      const user = await env.createAccount();
      page = await open(user, null);
      // The first try meets a server error; the retry goes through.
      let tries = 0;
      await page.route(
        (url) => url.pathname === '/api/upload',
        async (route) => {
          tries++;
          if (tries === 1) return route.fulfill({ status: 500, json: { success: false, error: 'The disk had a moment' } });
          return route.continue();
        },
      );
      expectedRefusals.push(500);
      await page.goto(`${siteUrlOf(env)}/dashboard`);
      await page.locator('.empty').waitFor();
      const file = path.join(env.dataDir, 'will-fail.png');
      await writeFile(file, (await photos(1))[0]!.bytes);
      await page.setInputFiles('#file', file);
      const row = page.locator('.upload-item[data-name="will-fail.png"]');
      await row.locator('.upload-state:text-is("Failed")').waitFor();
      expect(await row.getAttribute('class')).to.contain('is-failed');
      expect(await row.locator('progress').count()).to.equal(0);
      expect(await row.getByRole('alert').textContent()).to.equal('The disk had a moment');
      const red = await page.evaluate(() => getComputedStyle(document.querySelector('.upload-item .upload-state')!).color);
      const danger = await page.evaluate(() => {
        const probe = document.createElement('span');
        probe.style.color = 'var(--danger)';
        document.body.append(probe);
        const colour = getComputedStyle(probe).color;
        probe.remove();
        return colour;
      });
      expect(red).to.equal(danger);
      await expectAccessible(page, 'failed upload');
      await screenshot(page, 'dashboard-upload-failed');

      await row.getByRole('button', { name: 'Retry will-fail.png' }).click();
      await page.locator('.upload-summary p:text-is("1 file uploaded.")').waitFor();
      await row.waitFor({ state: 'detached' });
      await page.locator('.tile .tile-name:text-is("will-fail.png")').waitFor();
      expect(tries).to.equal(2);
      expect((await listed(env, user)).map((f) => f.originalName)).to.deep.equal(['will-fail.png']);
    });
  });

  describe('the lightbox', () => {
    it('opens a tile’s image from the grid and moves with the arrow keys; its name still leads to the file page', async () => {
      const { env } = ctx;
      const user = await env.createAccount();
      await seed(env, user, await photos(3));
      page = await open(user, '/dashboard');
      await page.locator('.tile').nth(2).waitFor();
      const names = await tileNames(page);
      expect(names).to.deep.equal(['forest-walk.png', 'harbour-at-dusk.png', 'mountain-photo.jpg']);

      await page.getByRole('button', { name: 'View harbour-at-dusk.png' }).click();
      const lightbox = page.getByRole('dialog', { name: /harbour-at-dusk\.png/ });
      await lightbox.waitFor();
      await page.waitForFunction(() => ((document.querySelector('.lightbox img') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0);
      expect(await lightbox.locator('img').getAttribute('alt')).to.equal('harbour-at-dusk.png');
      await expectAccessible(page, 'lightbox');
      await screenshot(page, 'dashboard-lightbox');
      await page.keyboard.press('ArrowRight');
      await page.getByRole('dialog', { name: /mountain-photo\.jpg/ }).waitFor();
      await page.keyboard.press('ArrowRight');
      await page.getByRole('dialog', { name: /forest-walk\.png/ }).waitFor();
      await page.keyboard.press('ArrowLeft');
      await page.getByRole('dialog', { name: /mountain-photo\.jpg/ }).waitFor();
      await page.keyboard.press('Escape');
      await page.locator('dialog.lightbox').waitFor({ state: 'detached' });
      // Focus goes back to the tile once the dialog has closed.
      await page.waitForFunction(() => document.activeElement?.matches('.tile-preview') ?? false);

      await page.getByRole('link', { name: 'forest-walk.png' }).click();
      await page.waitForURL(/\/dashboard\/files\//);
    });
  });

  describe('settings', () => {
    it('a Free account’s settings ask nothing of Pro’s, log no error, say what Pro adds once, and keep the key hidden until Reveal', async () => {
      const { env } = ctx;
      const user = await env.createAccount();
      page = await open(user, null);
      const requested: string[] = [];
      page.on('request', (req) => requested.push(new URL(req.url()).pathname));
      await page.goto(`${siteUrlOf(env)}/dashboard/settings`);
      await page.getByRole('heading', { name: 'Connected assistants' }).waitFor();
      await page.getByText('No assistant is connected.').waitFor();
      await page.getByRole('group', { name: 'Links of new uploads use' }).waitFor();
      expect(requested.filter((p) => PRO_ONLY.some((pro) => p.startsWith(pro)))).to.deep.equal([]);
      expect(await page.locator('.notice, .pro-notice').count()).to.equal(1);
      expect(await page.getByRole('heading', { name: 'More with Pro' }).count()).to.equal(1);

      // The key: not in the page until Reveal.
      expect(await page.content()).not.to.include(user.apiKey);
      expect(await page.getByTestId('api-key').textContent()).to.contain('hidden');
      await page.getByRole('button', { name: 'Reveal' }).click();
      await page.getByTestId('api-key').getByText(user.apiKey).waitFor();
      await page.getByRole('button', { name: 'Hide' }).click();
      await page.getByTestId('api-key').getByText('hidden').waitFor();
      expect(await page.content()).not.to.include(user.apiKey);
      expect(consoleErrorsOf(page)).to.deep.equal([]);
    });
  });

  describe('the keyboard alone', () => {
    it('uploads, selects, moves, deletes and shares', async () => {
      const { env } = ctx;
      const user = await env.createAccount();
      const archive = await createFolder(env, user, 'Archive');
      page = await open(user, '/dashboard');
      await page.locator('.empty').waitFor();

      // Upload: Tab to the picker, Space opens the chooser. Once the page's first requests are done,
      // so that no re-render replaces the focused input between the Tab and the Space.
      await page.waitForLoadState('networkidle');
      await tabTo(page, '#file');
      const chooser = page.waitForEvent('filechooser');
      await page.keyboard.press('Space');
      const [keep, drop] = (await photos(2)).map((p) => ({ name: p.name, mimeType: 'image/png', buffer: p.bytes }));
      await (await chooser).setFiles([keep!, drop!]);
      await page.locator('.upload-summary p:text-is("2 files uploaded.")').waitFor();
      await page.locator('.tile').nth(1).waitFor();

      // Select both, then move them.
      await tabTo(page, '.selection-bar .select-all input');
      await page.keyboard.press('Space');
      expect(await page.locator('.select-all').textContent()).to.equal('2 selected');
      await tabTo(page, '#move-target');
      await page.keyboard.press('ArrowDown');
      expect(await page.inputValue('#move-target')).to.equal(archive);
      await tabTo(page, '.selection-actions > button:first-of-type');
      await page.keyboard.press('Enter');
      await toast(page, 'Moved 2 files to Archive.').waitFor();
      await eventually(async () => (await listed(env, user)).every((f) => f.folderId === archive));

      // Delete one: its checkbox, then Delete; the toast's time runs out and the delete goes.
      await tabTo(page, `.tile input[aria-label="Select ${drop!.name}"]`, { back: true });
      await page.keyboard.press('Space');
      await tabTo(page, '.selection-actions button.danger', { back: true });
      await page.keyboard.press('Enter');
      await toast(page, `Deleted ${drop!.name}.`).waitFor();
      await eventually(async () => (await listed(env, user)).length === 1, 20_000);

      // Share the other: its actions, then Copy on the link.
      const [left] = await listed(env, user);
      expect(left!.originalName).to.equal(keep!.name);
      await tabTo(page, `.tile[data-filename="${left!.filename}"] .file-buttons button:last-child`);
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: keep!.name });
      await dialog.waitFor();
      await tabTo(page, 'dialog[open] button[aria-label="Copy Link"]');
      await page.keyboard.press('Enter');
      await dialog.getByText('Copied the Link.').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).to.match(/^https?:\/\//);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    });
  });

  describe('every page in both themes, at 1280 and 390 px', () => {
    it('passes axe and never scrolls sideways: files, a file, drop links, polls, settings', async () => {
      const { env } = ctx;
      const user = await env.createAccount();
      const trips = await createFolder(env, user, 'Summer trips');
      await createFolder(env, user, 'Receipts');
      const shots = await photos(6);
      const [first] = await seed(env, user, shots.map((p, i) => ({ ...p, ...(i % 2 ? { folderId: trips } : {}) })));
      await env.api.post('/api/user/drop-links', { key: user.apiKey, json: { note: 'The signed contract, please' } });
      await env.container.services.polls.create({ question: 'What should we build next?', options: ['Albums', 'Tags', 'Search by colour'] });

      const pages = [
        { name: 'dashboard', path: '/dashboard', ready: '.tile' },
        { name: 'file', path: `/dashboard/files/${first}`, ready: '.facts' },
        { name: 'drops', path: '/dashboard/drops', ready: '.drop' },
        { name: 'polls', path: '/dashboard/polls', ready: '.poll' },
        { name: 'settings', path: '/dashboard/settings', ready: '#assistants-title ~ p:not(.muted)' },
      ];
      for (const target of pages) {
        for (const theme of THEMES) {
          for (const width of WIDTHS) {
            const label = `${target.name} ${theme} ${width}px`;
            page = await open(user, target.path, { theme, width });
            await page.locator(target.ready).first().waitFor();
            expect(await page.evaluate(() => document.documentElement.dataset.theme)).to.equal(theme);
            if (target.name === 'dashboard') await page.locator('.tile img').first().waitFor();
            await expectAccessible(page, label);
            const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: innerWidth }));
            expect(scroll, `${label}: ${scroll} px wide in a ${inner} px window`).to.be.at.most(inner);
            if (width === 1280 && ['dashboard', 'file', 'settings'].includes(target.name)) await screenshot(page, `${target.name}-${theme}`);
            if (width === 390) await screenshot(page, `${target.name}-${theme}-phone`);
            // The menus and toasts of the files page, in this theme too.
            if (target.name === 'dashboard') {
              await page.getByRole('button', { name: 'Folder actions: Summer trips' }).click();
              await page.getByRole('menu').waitFor();
              await expectAccessible(page, `${label}, folder menu`);
              await page.keyboard.press('Escape');
              await page.getByRole('button', { name: 'Copy link to mountain-photo.jpg' }).click();
              await toast(page, 'Link to mountain-photo.jpg copied.').waitFor();
              await expectAccessible(page, `${label}, toast`);
            }
            const errors = consoleErrorsOf(page);
            await page.context().close();
            page = undefined;
            expect(errors, `${label}: console errors`).to.deep.equal([]);
          }
        }
      }
    });
  });
});
