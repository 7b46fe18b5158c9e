import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import type { Browser, Locator, Page } from 'playwright-core';
import { dropLinks } from '../../shared/db/schema.js';
import { SESSION_COOKIE } from '../../shared/services/accounts/session.service.js';
import { useBrowserEnv } from '../helpers/browser.js';
import { expectAccessible, screenshot } from '../helpers/dashboard.js';
import { eventually } from '../helpers/eventually.js';
import { createFolder } from '../helpers/folders.js';
import { pngBytes } from '../helpers/media.js';
import { callMcp, connectAssistant } from '../helpers/oauth.js';
import { type Pebble, startPebble } from '../helpers/pebble.js';
import { freePort } from '../helpers/ports.js';
import type { TestEnv, TestEnvOptions } from '../helpers/test-env.js';
import { upload } from '../helpers/uploads.js';

// The signed-in pages around the files: the notifications bell, polls, drop links, settings and a
// folder's settings, in Chromium against the real server, as a person uses them.

const PHONE = { width: 390, height: 844 };
/** Each page's console errors (CSP reports among them), with the address of what failed. */
const consoleErrors = new WeakMap<Page, { text: string; url: string }[]>();
// What the API refuses a Free account (403): its pages never ask for them.
const PRO_ONLY = ['/api/user/custom-domain', '/api/user/folder-keys'];

/**
 * A page signed in as `accountId` at the site's own origin (BASE_URL): the session cookie changes
 * things only for requests whose Origin is the site.
 */
async function openPage(browser: Browser, env: TestEnv, accountId: string, pathname: string, viewport = { width: 1280, height: 860 }): Promise<Page> {
  const site = env.container.config.baseUrl;
  const { token } = await env.container.services.sessions.create(accountId, 'playwright');
  const context = await browser.newContext({ viewport, permissions: ['clipboard-read', 'clipboard-write'] });
  await context.addCookies([{ name: SESSION_COOKIE, value: token, url: site, httpOnly: true, sameSite: 'Lax' }]);
  const page = await context.newPage();
  const errors: { text: string; url: string }[] = [];
  consoleErrors.set(page, errors);
  page.on('console', (message) => message.type() === 'error' && errors.push({ text: message.text(), url: message.location().url }));
  page.on('pageerror', (err) => errors.push({ text: err.message, url: '' }));
  await page.goto(`${site}${pathname}`);
  return page;
}

/**
 * Closes the page's context after checking that nothing (no CSP report, no script error) reached its
 * console. A request the API refused is reported there too: `refused` lists the paths whose refusal
 * the test expects. The site serves no favicon yet: Chromium's request for one is a 404.
 */
async function finish(page: Page, refused: string[] = []): Promise<void> {
  const expected = (e: { text: string; url: string }) =>
    e.text.startsWith('Failed to load resource') && (e.url.endsWith('/favicon.ico') || refused.includes(new URL(e.url).pathname));
  const errors = (consoleErrors.get(page) ?? []).filter((e) => !expected(e));
  await page.context().close();
  expect(errors.map((e) => `${e.text} ${e.url}`)).to.deep.equal([]);
}

const clipboardOf = (page: Page) => page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText());

/** What the page keeps in localStorage and sessionStorage, as one string. */
const webStorageOf = (page: Page) =>
  page.evaluate(() => {
    const g = globalThis as unknown as { localStorage: Record<string, string>; sessionStorage: Record<string, string> };
    return JSON.stringify({ ...g.localStorage }) + JSON.stringify({ ...g.sessionStorage });
  });

/** The accessible name of the element that has the keyboard. */
const focusedName = (page: Page) =>
  page.evaluate(() => {
    const el = (globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null; textContent: string | null; value?: string } | null } }).document.activeElement;
    return el?.getAttribute('aria-label') || el?.value || el?.textContent || '';
  });

const waitForText = (scope: Locator | Page, text: string | RegExp) => scope.getByText(text).first().waitFor();

/** Waits until the keyboard is on the element named `name` (focus moves as the page re-renders), then answers the name it is on. */
async function focusSettlesOn(page: Page, name: string): Promise<string> {
  await page.waitForFunction((wanted) => {
    const el = (globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null } | null } }).document.activeElement;
    return el?.getAttribute('aria-label') === wanted;
  }, name, { timeout: 5000 }).catch(() => undefined);
  return focusedName(page);
}

describe('dashboard: the account pages in a real browser', function () {
  this.timeout(120_000);
  const ctx = useBrowserEnv();
  const note = (title: string, data: Record<string, unknown> = {}) => ({ type: 'system', title, message: `${title}: details`, data });

  describe('the notifications bell', () => {
    it('counts unread notifications live from the stream, lists them, and marks one read on click', async () => {
      const { env, browser } = ctx;
      const alice = await env.createAccount();
      await env.container.services.notifications.notify(alice.id, note('Welcome aboard'));
      const page = await openPage(browser, env, alice.id, '/dashboard/polls');
      const bell = (unread: number) => page.getByRole('button', { name: `Notifications, ${unread} unread`, exact: true });
      await bell(1).waitFor();

      // Made on the server while the page is open: the badge follows at once.
      const storage = await env.container.services.notifications.notify(alice.id, {
        type: 'system',
        title: 'Storage almost full',
        message: 'You have used 90% of your storage.',
        data: { link: '/dashboard/settings', linkText: 'See usage' },
      });
      await bell(2).waitFor();
      expect(await page.locator('.bell-button .badge').textContent()).to.equal('2');
      // A link that is not a web address is never made clickable.
      await env.container.services.notifications.notify(alice.id, note('Odd link', { link: 'javascript:alert(1)', linkText: 'Run me' }));
      await bell(3).waitFor();

      // Opened from the keyboard.
      await bell(3).focus();
      await page.keyboard.press('Enter');
      const panel = page.getByRole('region', { name: 'Notifications' });
      await waitForText(panel, 'Storage almost full');
      expect(await panel.locator('.note').count()).to.equal(3);
      expect(await panel.getByRole('link', { name: 'Run me' }).count()).to.equal(0);
      expect(await panel.getByRole('link', { name: 'See usage' }).getAttribute('href')).to.equal('/dashboard/settings');

      // One arriving while the panel is open goes to the top of the list.
      await env.container.services.notifications.notify(alice.id, note('Fresh news'));
      await bell(4).waitFor();
      await waitForText(panel.locator('.note').first(), 'Fresh news');
      await expectAccessible(page, 'notifications panel');
      await screenshot(page, 'account-notifications');

      await panel.getByRole('button', { name: /Mark as read: .*Storage almost full/ }).click();
      await bell(3).waitFor();
      await eventually(async () => {
        const list = (await env.api.get('/api/user/notifications', { key: alice.apiKey })).body.data;
        return list.unreadCount === 3 && list.notifications.find((n: { id: string }) => n.id === storage.id).read === true;
      });
      expect(await panel.getByRole('button', { name: /Storage almost full/ }).count()).to.equal(0);

      // Escape closes the panel and gives the keyboard back to the bell.
      await page.keyboard.press('Escape');
      await panel.waitFor({ state: 'detached' });
      expect(await focusedName(page)).to.equal('Notifications, 3 unread');
      await finish(page);
    });
  });

  describe('polls', () => {
    it('votes in an open poll and then shows its results with counts and percentages in words', async () => {
      const { env, browser } = ctx;
      const [alice, bob, carol] = [await env.createAccount(), await env.createAccount(), await env.createAccount()];
      const open = await env.container.services.polls.create({ question: 'Which thumbnail format?', description: 'For the file grid', options: ['PNG', 'WebP', 'AVIF'] });
      const optionId = (text: string) => open.options.find((o) => o.text === text)!.id;
      await env.api.post('/api/user/polls/vote', { key: bob.apiKey, json: { pollId: open.poll.id, optionId: optionId('WebP') } });
      await env.api.post('/api/user/polls/vote', { key: carol.apiKey, json: { pollId: open.poll.id, optionId: optionId('PNG') } });
      const closed = await env.container.services.polls.create({ question: 'Dark mode?', options: ['Yes', 'No'] });
      await env.api.post('/api/user/polls/vote', { key: bob.apiKey, json: { pollId: closed.poll.id, optionId: closed.options[0]!.id } });
      await env.container.services.polls.close(closed.poll.id);

      const page = await openPage(browser, env, alice.id, '/dashboard/polls');
      const card = page.getByRole('region', { name: 'Which thumbnail format?' });
      await card.getByRole('radio', { name: 'WebP' }).waitFor();
      // Before voting: the choices, no results.
      expect(await card.locator('.poll-results').count()).to.equal(0);
      // A closed poll shows its results straight away.
      const closedCard = page.getByRole('region', { name: 'Dark mode?' });
      await waitForText(closedCard, '1 vote · 100%');
      expect(await closedCard.getByRole('radio').count()).to.equal(0);
      await expectAccessible(page, 'polls');

      await card.getByRole('radio', { name: 'WebP' }).check();
      await card.getByRole('button', { name: 'Vote' }).click();
      await waitForText(page.locator('.toast'), 'Thank you: your vote is counted.');
      const rows = await card.locator('.poll-results li').allTextContents();
      expect(rows).to.deep.equal(['PNG1 vote · 33%', 'WebP (your vote)2 votes · 67%', 'AVIF0 votes · 0%']);
      expect(await card.locator('li.mine .bar > span').getAttribute('style')).to.match(/width:\s*67%/);
      const mine = (await env.api.get('/api/user/polls', { key: alice.apiKey })).body.data.polls.find((p: { id: string }) => p.id === open.poll.id);
      expect(mine).to.include({ userVote: optionId('WebP'), totalVotes: 3 });
      await screenshot(page, 'account-polls');
      await finish(page);
    });

    it('says in plain words why a vote was refused', async () => {
      const { env, browser } = ctx;
      const alice = await env.createAccount();
      const poll = await env.container.services.polls.create({ question: 'Closing soon?', options: ['A', 'B'] });
      const page = await openPage(browser, env, alice.id, '/dashboard/polls');
      const card = page.getByRole('region', { name: 'Closing soon?' });
      await card.getByRole('radio', { name: 'A' }).check();
      await env.container.services.polls.close(poll.poll.id);
      await card.getByRole('button', { name: 'Vote' }).click();
      await waitForText(card.getByRole('alert'), 'This poll is closed');
      expect(await card.getByRole('alert').textContent()).to.equal('This poll is closed');
      await finish(page, ['/api/user/polls/vote']);
    });
  });

  describe('drop links', () => {
    it('creates a link into a folder, copies it, shows the file arriving live, cancels one and shows expired ones', async () => {
      const { env, browser } = ctx;
      const alice = await env.createAccount();
      const folderId = await createFolder(env, alice, 'Contracts');
      const page = await openPage(browser, env, alice.id, '/dashboard/drops');
      await waitForText(page, 'No drop links yet.');

      await page.getByLabel('Save the file in').selectOption({ label: 'Contracts' });
      await page.getByLabel('Open for').selectOption({ label: '1 day' });
      await page.getByLabel(/Largest file in MB/).fill('5');
      await page.getByLabel('Note for the sender (optional)').fill('The signed contract, please');
      await page.getByRole('button', { name: 'Create drop link' }).click();
      const first = page.locator('.drop', { hasText: 'The signed contract, please' });
      await waitForText(first, 'Waiting for a file');

      const [link] = (await env.api.get('/api/user/drop-links', { key: alice.apiKey })).body.data.dropLinks;
      expect(link).to.include({ note: 'The signed contract, please', folderId, maxSizeBytes: 5 * 1024 * 1024, status: 'pending' });
      expect(Date.parse(link.expiresAt) - Date.now()).to.be.within(86_300_000, 86_400_000);
      // The new link has the keyboard, ready to copy.
      expect(await focusedName(page)).to.equal(link.url);
      await first.getByRole('button', { name: 'Copy drop link' }).click();
      await waitForText(first, 'Copied the drop link.');
      expect(await clipboardOf(page)).to.equal(link.url);
      await expectAccessible(page, 'drop links');

      // Someone drops a file: the page hears it from the notification stream.
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(pngBytes(200, 3))]), 'contract.png');
      const dropped = await fetch(link.url.replace(env.container.config.siteUrl, env.web.url), { method: 'POST', body: form, headers: { accept: 'application/json' } });
      expect(dropped.status).to.equal(200);
      await waitForText(first, 'File received');
      expect(await first.getByRole('link', { name: 'contract.png' }).getAttribute('href')).to.match(/^\/dashboard\/files\/[^/]+\.png$/);

      // A second link, cancelled through its confirmation.
      await page.getByLabel('Note for the sender (optional)').fill('Holiday photos');
      await page.getByRole('button', { name: 'Create drop link' }).click();
      const second = page.locator('.drop', { hasText: 'Holiday photos' });
      await second.getByRole('button', { name: 'Cancel link' }).click();
      const dialog = page.getByRole('dialog', { name: 'Cancel this drop link?' });
      await dialog.getByRole('button', { name: 'Cancel the link' }).click();
      await waitForText(second, 'Cancelled');
      await dialog.waitFor({ state: 'detached' });
      const listed = (await env.api.get('/api/user/drop-links', { key: alice.apiKey })).body.data.dropLinks;
      expect(listed.map((l: { note: string }) => l.note)).to.deep.equal(['The signed contract, please']);
      const secondUrl = await second.locator('input').count();
      expect(secondUrl).to.equal(0);

      // One past its time reads as expired.
      const late = await env.api.post('/api/user/drop-links', { key: alice.apiKey, json: { note: 'Too late' } });
      await env.container.db.update(dropLinks).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(dropLinks.id, late.body.data.id));
      await page.reload();
      await waitForText(page.locator('.drop', { hasText: 'Too late' }), 'Expired');
      await waitForText(page.locator('.drop', { hasText: 'The signed contract, please' }), 'File received');
      await expectAccessible(page, 'drop links with states');
      await screenshot(page, 'account-drops');
      await finish(page);
    });
  });

  describe('settings', () => {
    it('shows usage that matches the API, changes the link style, and explains custom domains to a Free account', async () => {
      const { env, browser } = ctx;
      const alice = await env.createAccount();
      for (const seed of [1, 2]) expect((await upload(env, { key: alice.apiKey, bytes: pngBytes(300, seed), json: true })).status).to.equal(200);
      const { user } = (await env.api.get('/api/user/dashboard?limit=1', { key: alice.apiKey })).body.data;

      const page = await openPage(browser, env, alice.id, '/dashboard/settings');
      const proRequests: string[] = [];
      page.on('request', (req) => PRO_ONLY.some((path) => new URL(req.url()).pathname.startsWith(path)) && proRequests.push(req.url()));
      // Loaded again with the listener in place, so the page's first requests are seen too.
      await page.reload();
      const uploads = page.locator('#usage-uploads');
      await uploads.waitFor();
      expect(await uploads.getAttribute('value')).to.equal(String(user.usage.todayCount));
      expect(await uploads.getAttribute('max')).to.equal(String(user.limits.dailyLimit));
      expect(await page.getByTestId('uploads-today').textContent()).to.equal(`2 of ${user.limits.dailyLimit} uploads today · ${user.usage.remaining} left`);
      const storage = page.locator('#usage-storage');
      expect(await storage.getAttribute('value')).to.equal(String(user.usage.monthlyStorageUsed));
      expect(await storage.getAttribute('max')).to.equal(String(user.limits.monthlyStorageLimit));
      expect(await page.getByTestId('storage-used').textContent()).to.match(/^\d+(\.\d)? (B|KB) of 5\.0 GB used · under 1%$/);

      const style = page.getByRole('group', { name: 'Links of new uploads use' });
      expect(await style.getByRole('radio', { name: /Custom domain/ }).isDisabled()).to.equal(true);
      // Each style's preview has the shape its links really have: short ones are /s/{code}.
      const site = new URL(env.container.config.siteUrl);
      expect(await style.locator('.example').allTextContents()).to.deep.equal([
        `${site.protocol}//${alice.username}.${site.host}/x7Kp2Qa9Lm.png`,
        `${site.origin}/s/aB3dE9k`,
      ]);
      await style.getByRole('radio', { name: /Short URL/ }).check();
      await page.getByRole('button', { name: 'Save link style' }).click();
      await waitForText(page, 'New uploads will use short URLs; existing links are unchanged.');
      expect((await env.api.get('/api/user/subdomain', { key: alice.apiKey })).body.data.format).to.equal('short');

      // What Pro adds is said once, and nothing of Pro's is asked for.
      expect(await page.getByRole('heading', { name: 'More with Pro' }).count()).to.equal(1);
      expect(await page.locator('.notice, .pro-notice').count()).to.equal(1);
      expect(await page.getByRole('textbox', { name: 'Domain' }).count()).to.equal(0);
      expect(proRequests).to.deep.equal([]);
      await expectAccessible(page, 'settings');
      await screenshot(page, 'account-settings');
      await finish(page);
    });

    it('keeps the API key hidden until Reveal, copies it, and regenerates it so the old one is refused', async () => {
      const { env, browser } = ctx;
      const alice = await env.createAccount();
      const page = await openPage(browser, env, alice.id, '/dashboard/settings');
      const shown = page.getByTestId('api-key');
      await waitForText(shown, 'hidden');
      expect(await page.content()).not.to.include(alice.apiKey);

      await page.getByRole('button', { name: 'Reveal' }).click();
      await waitForText(shown, alice.apiKey);
      expect(await page.getByRole('button', { name: 'Hide' }).getAttribute('aria-pressed')).to.equal('true');
      await page.getByRole('button', { name: 'Hide' }).click();
      await waitForText(shown, 'hidden');
      await page.getByRole('button', { name: 'Copy API key' }).click();
      await waitForText(page, 'Copied the API key.');
      expect(await clipboardOf(page)).to.equal(alice.apiKey);

      await page.getByRole('button', { name: 'Regenerate' }).click();
      const dialog = page.getByRole('dialog', { name: 'Regenerate the API key?' });
      await dialog.getByRole('button', { name: 'Regenerate key' }).click();
      await dialog.waitFor({ state: 'detached' });
      await waitForText(page, /New key made: the old one no longer works/);
      const newKey = (await shown.textContent())!;
      expect(newKey).to.match(/^hfs_[0-9a-f]{48}$/).and.not.equal(alice.apiKey);
      expect((await env.api.get('/api/auth/me', { key: alice.apiKey })).status).to.equal(401);
      expect((await env.api.get('/api/auth/me', { key: newKey })).status).to.equal(200);

      // The uploader config downloads carry the new key.
      const download = page.waitForEvent('download');
      await page.getByRole('link', { name: 'ShareX (.sxcu)' }).click();
      const sharex = JSON.parse(await readFile((await (await download).path())!, 'utf8'));
      expect(sharex.Headers['x-api-key']).to.equal(newKey);
      expect(await page.getByRole('link', { name: 'curl command' }).getAttribute('href')).to.equal('/api/user/uploader-config?tool=curl');

      // Nothing of either key is kept in the browser's storage.
      const stored = await webStorageOf(page);
      expect(stored).not.to.include(alice.apiKey);
      expect(stored).not.to.include(newKey);
      await finish(page);
    });

    it('lists connected assistants with what they may do, and Disconnect ends their access', async () => {
      const { env, browser } = ctx;
      const alice = await env.createAccount();
      const { tokens } = await connectAssistant(env, { user: alice, name: 'Test Assistant', scopes: ['files:read', 'folders:read'] });
      expect((await callMcp(`${env.container.config.baseUrl}/mcp`, tokens.access_token)).status).to.equal(200);

      const page = await openPage(browser, env, alice.id, '/dashboard/settings');
      const item = page.locator('.assistant', { hasText: 'Test Assistant' });
      await waitForText(item, 'May: List your files and look at them; List your folders.');
      await item.getByRole('button', { name: 'Disconnect' }).click();
      const dialog = page.getByRole('dialog', { name: 'Disconnect Test Assistant?' });
      await dialog.getByRole('button', { name: 'Disconnect' }).click();
      await waitForText(page, 'Test Assistant is disconnected: its access ended.');
      await waitForText(page, 'No assistant is connected.');
      expect((await env.api.get('/api/user/connections', { key: alice.apiKey })).body.data.connections).to.deep.equal([]);
      expect((await callMcp(`${env.container.config.baseUrl}/mcp`, tokens.access_token)).status).to.equal(401);
      await finish(page);
    });

    it('works at phone width: nothing wider than the screen, accessible, the bell panel inside it', async () => {
      const { env, browser } = ctx;
      const alice = await env.createAccount({ plan: 'pro' });
      await env.container.services.notifications.notify(alice.id, note('A file was dropped', { link: '/dashboard/drops', linkText: 'See drop links' }));
      const page = await openPage(browser, env, alice.id, '/dashboard/settings', PHONE);
      await page.getByRole('button', { name: 'Add domain' }).waitFor();
      await page.getByRole('button', { name: 'Notifications, 1 unread' }).waitFor();
      const widest = () => page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
      expect(await widest()).to.be.at.most(PHONE.width);
      await expectAccessible(page, 'settings at phone width');
      await screenshot(page, 'account-settings-phone');

      await page.getByRole('button', { name: 'Notifications, 1 unread' }).click();
      const panel = page.getByRole('region', { name: 'Notifications' });
      await waitForText(panel, 'A file was dropped');
      const box = (await panel.boundingBox())!;
      expect(box.x).to.be.at.least(0);
      expect(box.x + box.width).to.be.at.most(PHONE.width);
      await expectAccessible(page, 'notifications at phone width');
      await screenshot(page, 'account-notifications-phone');
      // Its link goes to the page in place, and marks the notification read.
      await panel.getByRole('link', { name: 'See drop links' }).click();
      await page.getByRole('heading', { name: 'Drop links', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Notifications, 0 unread' }).waitFor();
      await finish(page);
    });
  });

  describe('folder settings', () => {
    it('makes the folder the default, shares it as an album that opens, and issues its key with uploader configs', async () => {
      const { env, browser } = ctx;
      const alice = await env.createAccount({ plan: 'pro' });
      const folderId = await createFolder(env, alice, 'Holidays');
      const uploaded = await upload(env, { key: alice.apiKey, bytes: pngBytes(300, 7), name: 'beach.png', json: true });
      await env.api.patch(`/api/user/images/${uploaded.body.data.filename}/move`, { key: alice.apiKey, json: { folderId } });

      const page = await openPage(browser, env, alice.id, '/dashboard');
      const menu = page.getByRole('button', { name: 'Folder actions: Holidays' });
      const open = async (item: 'Settings' | 'Share') => {
        await menu.click();
        await page.getByRole('menuitem', { name: item }).click();
      };

      // Share: an album that opens.
      await open('Share');
      const sharing = page.getByRole('dialog', { name: 'Share folder: Holidays' });
      await sharing.getByRole('button', { name: 'Share as album' }).click();
      const albumLink = sharing.getByRole('textbox', { name: 'Album link' });
      await albumLink.waitFor();
      const albumUrl = await albumLink.inputValue();
      expect(albumUrl).to.match(/\/album\/[\w-]+$/);
      await sharing.getByRole('button', { name: 'Copy album link' }).click();
      await waitForText(sharing, 'Copied the album link.');
      expect(await clipboardOf(page)).to.equal(albumUrl);
      const opened = page.context().waitForEvent('page');
      await sharing.getByRole('link', { name: 'Open album' }).click();
      const album = await opened;
      await album.waitForLoadState();
      expect(await album.textContent('h1')).to.equal('Holidays');
      expect(await album.locator('img').count()).to.equal(1);
      await album.close();
      await expectAccessible(page, 'folder sharing');
      await page.keyboard.press('Escape');
      await sharing.waitFor({ state: 'detached' });

      // Settings: the default upload folder and the folder key.
      await open('Settings');
      const dialog = page.getByRole('dialog', { name: 'Folder settings: Holidays' });
      await dialog.getByRole('button', { name: 'Make default upload folder' }).click();
      await waitForText(dialog, 'This is your default upload folder');
      expect((await env.api.get('/api/auth/me', { key: alice.apiKey })).body.data.user.defaultUploadFolderId).to.equal(folderId);

      await dialog.getByRole('button', { name: 'Issue a folder key' }).click();
      const key = dialog.getByTestId('folder-key');
      await key.waitFor();
      const folderKey = (await key.textContent())!;
      expect(folderKey).to.match(/^fk_[0-9a-f]{6}_[0-9a-f]{32}$/);
      const [issued] = (await env.api.get('/api/user/folder-keys', { key: alice.apiKey })).body.data;
      expect(issued).to.include({ folderId, apiKey: folderKey });
      const sharex = dialog.getByRole('link', { name: 'ShareX (.sxcu) for Holidays' });
      expect(await sharex.getAttribute('href')).to.equal(`/api/user/uploader-config?tool=sharex&key=${issued.id}`);
      const download = page.waitForEvent('download');
      await sharex.click();
      expect(JSON.parse(await readFile((await (await download).path())!, 'utf8')).Headers['x-api-key']).to.equal(folderKey);
      // The key files uploads into the folder.
      const viaKey = await upload(env, { key: folderKey, bytes: pngBytes(300, 8), json: true });
      expect(viaKey.status).to.equal(200);
      const inFolder = (await env.api.get(`/api/user/dashboard?folderId=${folderId}`, { key: alice.apiKey })).body.data.uploads;
      expect(inFolder.map((f: { filename: string }) => f.filename)).to.include(viaKey.body.data.filename);

      await expectAccessible(page, 'folder settings');
      await screenshot(page, 'account-folder-settings');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(await focusSettlesOn(page, 'Folder actions: Holidays')).to.equal('Folder actions: Holidays');
      await finish(page);
    });

    it('tells a Free account in plain words that folder keys come with Pro, without asking for them', async () => {
      const { env, browser } = ctx;
      const alice = await env.createAccount();
      await createFolder(env, alice, 'Receipts');
      const page = await openPage(browser, env, alice.id, '/dashboard');
      const proRequests: string[] = [];
      page.on('request', (req) => PRO_ONLY.some((path) => new URL(req.url()).pathname.startsWith(path)) && proRequests.push(req.url()));
      await page.getByRole('button', { name: 'Folder actions: Receipts' }).click();
      await page.getByRole('menuitem', { name: 'Settings' }).click();
      const dialog = page.getByRole('dialog', { name: 'Folder settings: Receipts' });
      await waitForText(dialog, /Folder keys are part of the Pro plan/);
      expect(await dialog.getByRole('button', { name: 'Issue a folder key' }).count()).to.equal(0);
      expect(proRequests).to.deep.equal([]);
      await expectAccessible(page, 'folder settings, Free');
      await finish(page);
    });
  });
});

describe('dashboard: a custom domain from records to active, in a real browser', function () {
  this.timeout(120_000);
  const CNAME_TARGET = 'edge.hosted.test';
  // Pebble first: the service must know the CA and the DNS server when it starts.
  const options: TestEnvOptions = { env: {} };
  let pebble: Pebble;
  before(async () => {
    options.port = await freePort();
    pebble = await startPebble({ httpPort: options.port });
    Object.assign(options.env!, {
      ACME_DIRECTORY_URL: pebble.directoryUrl,
      ACME_CA_FILE: pebble.caCertPath,
      ACME_CAA_IDENTITY: 'pebble.test',
      DNS_SERVERS: pebble.dnsServer,
      CUSTOM_DOMAIN_CNAME_TARGET: CNAME_TARGET,
    });
  });
  const ctx = useBrowserEnv(options);
  after(() => pebble?.stop());

  it('adds a domain, shows the records to publish and each check as it turns, and offers the custom link style once active', async () => {
    const { env, browser } = ctx;
    const pro = await env.createAccount({ plan: 'pro' });
    const domain = 'shop.example.test';
    const page = await openPage(browser, env, pro.id, '/dashboard/settings');
    await page.getByRole('textbox', { name: 'Domain' }).fill(domain);
    await page.getByRole('button', { name: 'Add domain' }).click();
    await waitForText(page, `${domain} added. Publish the three records below at your DNS provider.`);

    const config = (await env.api.get('/api/user/custom-domain', { key: pro.apiKey })).body.data;
    const record = (check: string) => page.locator(`.dns-record[data-check="${check}"]`);
    const shown = async (check: string) => ({ text: (await record(check).locator('dd code').allTextContents()).slice(0, 2), state: await record(check).locator('.pill').textContent() });
    expect(await shown('cname')).to.deep.equal({ text: [domain, CNAME_TARGET], state: '… Not checked yet' });
    expect(await shown('txt_val')).to.deep.equal({ text: [config.txtRecordName, config.txtRecordValue], state: '… Not checked yet' });
    expect(await shown('ssl_val_0')).to.deep.equal({ text: [config.sslValidationRecords[0].txt_name, config.sslValidationRecords[0].txt_value], state: '… Not checked yet' });
    await record('txt_val').getByRole('button', { name: 'Copy ownership TXT record value' }).click();
    expect(await clipboardOf(page)).to.equal(config.txtRecordValue);
    await expectAccessible(page, 'custom domain, pending');
    await screenshot(page, 'account-custom-domain-pending');

    // Check now, with nothing published yet.
    await page.getByRole('button', { name: 'Check now' }).click();
    for (const check of ['cname', 'txt_val', 'ssl_val_0']) await waitForText(record(check), 'Not found yet');

    // The CNAME, seen by a check the page did not ask for (the scheduled one): the page, polling, follows.
    await pebble.setCname(domain, CNAME_TARGET);
    expect((await env.api.post('/api/user/custom-domain/verify', { key: pro.apiKey })).body.data.dnsChecks).to.deep.equal({ cname: true, txt_val: false, ssl_val_0: false });
    await waitForText(record('cname'), 'Found');
    expect(await record('txt_val').locator('.pill').textContent()).to.equal('… Not found yet');
    expect(await record('ssl_val_0').locator('.pill').textContent()).to.equal('… Not found yet');

    // Both TXT records: the domain turns active, the page says so.
    await pebble.setTxt(config.txtRecordName, config.txtRecordValue);
    await pebble.setTxt(config.sslValidationRecords[0].txt_name, config.sslValidationRecords[0].txt_value);
    await page.getByRole('button', { name: 'Check now' }).click();
    await waitForText(page, 'Active: your files are served on this domain over HTTPS');
    for (const check of ['cname', 'txt_val', 'ssl_val_0']) expect(await record(check).locator('.pill').textContent()).to.equal('✓ Found');
    expect((await env.api.get('/api/user/custom-domain', { key: pro.apiKey })).body.data.customDomainStatus).to.equal('active');

    // Now the custom link style can be chosen.
    const custom = page.getByRole('radio', { name: /Custom domain/ });
    await eventually(async () => !(await custom.isDisabled()));
    await custom.check();
    await page.getByRole('button', { name: 'Save link style' }).click();
    await waitForText(page, 'New uploads will use your custom domain; existing links are unchanged.');
    expect((await env.api.get('/api/user/subdomain', { key: pro.apiKey })).body.data.format).to.equal('custom');
    await screenshot(page, 'account-custom-domain-active');

    await page.getByRole('button', { name: 'Remove domain' }).click();
    await page.getByRole('dialog', { name: `Remove ${domain}?` }).getByRole('button', { name: 'Remove domain' }).click();
    await waitForText(page, 'Custom domain removed. Its links use your subdomain again.');
    await page.getByRole('button', { name: 'Add domain' }).waitFor();
    expect((await env.api.get('/api/user/custom-domain', { key: pro.apiKey })).body.data.customDomain).to.equal(null);
    await finish(page);
  });
});
