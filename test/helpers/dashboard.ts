import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SESSION_COOKIE } from '../../shared/services/accounts/session.service.js';
import type { TestEnv } from './test-env.js';

// Browser tests of the dashboard: a signed-in page, axe-core's verdict, and screenshots kept under
// test-output/screenshots for a person to look at.

const AXE_SOURCE = createRequire(import.meta.url)('axe-core').source as string;
export const SCREENSHOT_DIR = path.resolve('test-output', 'screenshots');

/**
 * The site's own origin (BASE_URL, `http://localhost:port`): the API takes the session cookie for
 * changes only from pages there, as a browser would be on the real site.
 */
export function siteUrlOf(env: TestEnv): string {
  return env.container.config.baseUrl;
}

/** A browser context signed in as `accountId` (a real session, its cookie set as sign-in sets it). */
export async function signedInContext(browser: Browser, env: TestEnv, accountId: string, options: { viewport?: { width: number; height: number } } = {}): Promise<BrowserContext> {
  const { token } = await env.container.services.sessions.create(accountId, 'playwright');
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 860 }, permissions: ['clipboard-read', 'clipboard-write'] });
  await context.addCookies([{ name: SESSION_COOKIE, value: token, url: siteUrlOf(env), httpOnly: true, sameSite: 'Lax' }]);
  return context;
}

/** Opens `pathname` signed in; answers the page, which fails the test on any console error or CSP report. */
export async function openSignedIn(browser: Browser, env: TestEnv, accountId: string, pathname: string, options: { viewport?: { width: number; height: number } } = {}): Promise<Page> {
  const context = await signedInContext(browser, env, accountId, options);
  const page = await context.newPage();
  watchConsole(page);
  await page.goto(`${siteUrlOf(env)}${pathname}`);
  return page;
}

/** Collects console errors (CSP violations among them) on `page.consoleErrors`. */
export function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  (page as Page & { consoleErrors?: string[] }).consoleErrors = errors;
  return errors;
}

/** The errors `watchConsole` collected on this page. */
export function consoleErrorsOf(page: Page): string[] {
  return (page as Page & { consoleErrors?: string[] }).consoleErrors ?? [];
}

/** Runs axe-core on the page as it is now: no serious or critical violation may be left. */
export async function expectAccessible(page: Pick<Page, 'evaluate'>, label: string): Promise<void> {
  // Evaluated over the DevTools protocol, which the page's CSP does not govern.
  // Colours are judged as they settle: a button's .15 s background transition, caught halfway, fails contrast.
  await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined))));
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(async () => {
    const result = await (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }> } }).axe.run();
    return result.violations;
  })) as { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${label}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).to.deep.equal([]);
}

/** Saves a full-page screenshot as test-output/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}
