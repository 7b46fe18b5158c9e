import { chromium, type Browser } from 'playwright-core';
import { createTestEnv, type TestEnv, type TestEnvOptions } from './test-env.js';

// Debian's Chromium (.ci/run installs it); the flags keep it off a network this machine does not have.
const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

/** A headless Chromium for a test file's pages. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}

/**
 * For a describe block of browser tests: starts a test env and Chromium before its tests and stops
 * both after; the returned object holds them once started.
 */
export function useBrowserEnv(options: TestEnvOptions = {}): { env: TestEnv; browser: Browser } {
  const started = {} as { env: TestEnv; browser: Browser };
  before(async () => {
    started.env = await createTestEnv(options);
    started.browser = await launchChromium();
  });
  after(async () => {
    await started.browser?.close();
    await started.env?.close();
  });
  return started;
}
