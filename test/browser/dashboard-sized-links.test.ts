import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { THEME_COOKIE } from '../../api/site/views/theme.js';
import { useBrowserEnv } from '../helpers/browser.js';
import { consoleErrorsOf, expectAccessible, screenshot, signedInContext, siteUrlOf, watchConsole } from '../helpers/dashboard.js';
import type { TestEnv } from '../helpers/test-env.js';
import { getWithHost, upload } from '../helpers/uploads.js';

// The dashboard's sized link (issue 43): an image's links may point at a rendition of a chosen
// width and format, which the server hands out (signed, for a private file).

type Account = { id: string; username: string; apiKey: string };
type Theme = 'light' | 'dark';

/** A photo-like PNG (noise), so the rendition has real work to do. */
const noisePng = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 40, g: 90, b: 160 }, noise: { type: 'gaussian', mean: 120, sigma: 40 } } })
    .png()
    .toBuffer();

async function seed(env: TestEnv, account: Account, name: string, bytes: Buffer): Promise<{ filename: string; url: string }> {
  const res = await upload(env, { key: account.apiKey, bytes, name, json: true });
  expect(res.status, res.text).to.equal(200);
  return res.body.data;
}

/** The clipboard's text, as the page reads it. */
const clipboard = (page: Page) => page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText());

/** Chooses a sized link of `width` px in `format` in `scope` (the file page, a dialog); answers the Link row's text once it is that one. */
async function chooseSized(scope: Locator, width: string, format: string): Promise<string> {
  await scope.getByLabel('Sized link').check();
  await scope.getByLabel('Width').selectOption({ label: width });
  await scope.getByLabel('Format').selectOption({ label: format });
  const link = scope.locator('input[data-format="url"]');
  await expectValue(link, `w=${parseInt(width, 10)}&format=${format.toLowerCase()}`);
  await scope.locator('fieldset:not([disabled]) input[data-format="url"]').waitFor();
  return link.inputValue();
}

/** Waits until the input's value holds `part` (the rows change when the server's answer arrives). */
async function expectValue(input: Locator, part: string) {
  await input.page().waitForFunction(([element, wanted]) => (element as unknown as { value: string }).value.includes(wanted), [await input.elementHandle(), part] as const);
}

/** Fetches the link as a browser would (Accept with AVIF and WebP); answers the status and what the image is. */
async function imageAt(url: string) {
  const res = await getWithHost(url, { accept: 'image/avif,image/webp,image/*,*/*;q=0.8' });
  if (res.status !== 200) return { status: res.status };
  const meta = await sharp(res.body).metadata();
  return { status: res.status, type: res.headers['content-type'], format: meta.format, width: meta.width, height: meta.height };
}

describe('the dashboard: sized links of an image', function () {
  this.timeout(120_000);
  const ctx = useBrowserEnv();
  let page: Page | undefined;

  afterEach(async function () {
    if (!page) return;
    const errors = consoleErrorsOf(page);
    await page.context().close();
    page = undefined;
    if (this.currentTest?.state === 'passed') expect(errors, 'console errors').to.deep.equal([]);
  });

  async function open(account: Account, pathname: string, theme: Theme = 'light'): Promise<Page> {
    const { env, browser } = ctx;
    const context = await signedInContext(browser, env, account.id);
    await context.addCookies([{ name: THEME_COOKIE, value: theme, url: siteUrlOf(env) }]);
    const opened = await context.newPage();
    watchConsole(opened);
    await opened.goto(`${siteUrlOf(env)}${pathname}`);
    return opened;
  }

  it('links a public PNG at 320 px as WebP from the file page; Original stays the default', async () => {
    const { env } = ctx;
    const user = await env.createAccount();
    const file = await seed(env, user, 'meadow.png', await noisePng(800, 600));
    page = await open(user, `/dashboard/files/${file.filename}`);
    const links = page.locator('.file-links');
    await links.waitFor();

    // Nothing changes for whoever does not ask for a size: the original's link, no width or format to choose.
    expect(await links.locator('input[data-format="url"]').inputValue()).to.equal(file.url);
    expect(await links.getByLabel('Width').count()).to.equal(0);
    await links.getByLabel('Sized link').check();
    expect(await links.getByLabel('Width').inputValue()).to.equal('640');
    expect(await links.getByLabel('Format').inputValue()).to.equal('auto');
    await expectValue(links.locator('input[data-format="url"]'), '?w=640&format=auto');
    await expectAccessible(page, 'sized link, light');

    const link = await chooseSized(links, '320 px', 'WebP');
    expect(link).to.equal(`${file.url}?w=320&format=webp`);
    await links.getByRole('button', { name: 'Copy Link', exact: true }).click();
    await links.locator('.copy-said:text-is("Copied the Link.")').waitFor();
    const copied = await clipboard(page);
    expect(copied).to.equal(link);
    expect(await imageAt(copied)).to.deep.equal({ status: 200, type: 'image/webp', format: 'webp', width: 320, height: 240 });
    // Every format of the row uses the sized link.
    expect(await links.locator('input[data-format="markdown"]').inputValue()).to.equal(`![meadow.png](${link})`);
    expect(await links.locator('input[data-format="bbcode"]').inputValue()).to.equal(`[img]${link}[/img]`);
    await screenshot(page, 'sized-link');

    // Back to the original.
    await links.getByLabel('Sized link').uncheck();
    expect(await links.locator('input[data-format="url"]').inputValue()).to.equal(file.url);
    expect(await links.getByLabel('Width').count()).to.equal(0);
  });

  it('passes axe with the sized choice open in the dark theme', async () => {
    const { env } = ctx;
    const user = await env.createAccount();
    const file = await seed(env, user, 'night.png', await noisePng(400, 300));
    page = await open(user, `/dashboard/files/${file.filename}`, 'dark');
    const links = page.locator('.file-links');
    await chooseSized(links, '256 px', 'AVIF');
    expect(await imageAt(await links.locator('input[data-format="url"]').inputValue())).to.include({ status: 200, type: 'image/avif', width: 256 });
    await expectAccessible(page, 'sized link, dark');
  });

  it('hands out a signed sized link of a private file from the Actions dialog, and it loads', async () => {
    const { env } = ctx;
    const user = await env.createAccount();
    const file = await seed(env, user, 'secret.png', await noisePng(800, 600));
    const privacy = await env.api.patch(`/api/user/images/${file.filename}/privacy`, { key: user.apiKey, json: { isPrivate: true } });
    expect(privacy.status).to.equal(200);
    expect((await getWithHost(`${file.url}?w=320&format=webp`)).status, 'unsigned').to.equal(404);

    page = await open(user, '/dashboard');
    await page.click('button:has-text("Actions for secret.png")');
    const dialog = page.locator('dialog[open]');
    const link = await chooseSized(dialog, '320 px', 'WebP');
    const url = new URL(link);
    expect(url.searchParams.get('w')).to.equal('320');
    expect(url.searchParams.get('format')).to.equal('webp');
    expect(url.searchParams.get('signature')).to.be.a('string').and.not.equal('');
    await dialog.getByRole('button', { name: 'Copy HTML', exact: true }).click();
    await dialog.locator('.copy-said:text-is("Copied the HTML.")').waitFor();
    expect(await clipboard(page)).to.equal(`<img src="${link.replace(/&/g, '&amp;')}" alt="secret.png">`);
    expect(await imageAt(link)).to.deep.equal({ status: 200, type: 'image/webp', format: 'webp', width: 320, height: 240 });
    await expectAccessible(page, 'sized link, dialog');
  });

  it('offers no size for an SVG or a document', async () => {
    const { env } = ctx;
    const user = await env.createAccount();
    const svg = await seed(env, user, 'logo.svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'));
    const text = await seed(env, user, 'notes.txt', Buffer.from('shopping list\n'));
    page = await open(user, '/dashboard');
    for (const file of [svg, text]) {
      await page.goto(`${siteUrlOf(env)}/dashboard/files/${file.filename}`);
      await page.locator('.file-page input[data-format="url"]').waitFor();
      expect(await page.getByLabel('Sized link').count(), file.filename).to.equal(0);
      expect(await page.inputValue('.file-page input[data-format="url"]')).to.equal(file.url);
    }
  });
});
