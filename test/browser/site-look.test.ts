import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser.js';
import { expectAccessible, screenshot, signedInContext, watchConsole } from '../helpers/dashboard.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';

// The site's own pages (home, sign-in, registration, an error page) in both themes and at both
// widths: axe finds nothing serious, nothing scrolls sideways, and the theme switch works in place.

const WIDTHS = [1280, 390] as const;
const THEMES = ['light', 'dark'] as const;

describe('site pages in a real browser', function () {
  this.timeout(120_000);
  let env: TestEnv;
  let browser: Browser;
  let site: string;

  before(async () => {
    env = await createTestEnv();
    site = env.container.config.siteUrl;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await env.close();
  });

  async function open(path: string, theme: (typeof THEMES)[number], width: number): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 860 } });
    await context.addCookies([{ name: 'theme', value: theme, url: site }]);
    const page = await context.newPage();
    watchConsole(page);
    await page.goto(`${site}${path}`);
    return page;
  }

  async function expectNoSideways(page: Page, label: string) {
    const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: innerWidth }));
    expect(scroll, `${label}: page ${scroll} px wide in a ${width} px window`).to.be.at.most(width);
  }

  const PAGES = [
    { name: 'home', path: '/', ready: '#uploader .dropzone, #uploader [class*=drop]' },
    { name: 'sign-in', path: '/login', ready: '#login-form' },
    { name: 'register', path: '/register', ready: '#register-form' },
    { name: 'not-found', path: '/no/such/page', ready: '.error-page' },
  ];

  for (const { name, path, ready } of PAGES) {
    it(`${name}: accessible in both themes at 1280 and 390 px, nothing scrolls sideways`, async () => {
      for (const theme of THEMES) {
        for (const width of WIDTHS) {
          const page = await open(path, theme, width);
          const label = `${name} ${theme} ${width}px`;
          await page.locator(ready).first().waitFor();
          expect(await page.evaluate(() => document.documentElement.dataset.theme)).to.equal(theme);
          await expectAccessible(page, label);
          await expectNoSideways(page, label);
          if (width === 1280) await screenshot(page, `${name}-${theme}`);
          else await screenshot(page, `${name}-${theme}-phone`);
          await page.context().close();
        }
      }
    });
  }

  it('shows a browser the error page for a missing file, album and route, with its status and a way home', async () => {
    const alice = await env.createAccount();
    for (const path of [`/u/${alice.username}/gone.png`, '/album/nosuchalbum', '/no/such/page']) {
      const page = await open('/', 'light', 1280);
      const response = await page.goto(`${site}${path}`);
      expect(response!.status(), path).to.equal(404);
      await page.getByRole('heading', { name: 'Nothing here' }).waitFor();
      await page.getByRole('link', { name: 'Go to the home page' }).click();
      await page.waitForURL(`${site}/`);
      await page.context().close();
    }
  });

  it('sends a signed-in browser from /account to the dashboard settings', async () => {
    const alice = await env.createAccount();
    const context = await signedInContext(browser, env, alice.id);
    const page = await context.newPage();
    await page.goto(`${site}/account`);
    await page.waitForURL(`${site}/dashboard/settings`);
    await page.getByRole('heading', { name: 'Settings' }).first().waitFor();
    await context.close();
  });

  it('switches the theme in place from the header, and the choice holds on the next page', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: 'light' });
    const page = await context.newPage();
    const errors = watchConsole(page);
    await page.goto(`${site}/login`);
    const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    const light = await background();
    await page.getByRole('button', { name: 'Use the dark theme' }).click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).to.equal('dark');
    expect(await background()).to.not.equal(light);
    // The pressed button is hidden now; its partner has the focus.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).to.equal('Use the light theme');
    await page.goto(`${site}/register`);
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).to.equal('dark');
    expect((await context.cookies()).find((c) => c.name === 'theme')).to.include({ value: 'dark', sameSite: 'Lax' });
    expect(errors).to.deep.equal([]);
    await context.close();
  });
});
