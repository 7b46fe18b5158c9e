import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser.js';
import { consoleErrorsOf, expectAccessible, openSignedIn, screenshot } from '../helpers/dashboard.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { verified, WebhookReceiver } from '../helpers/webhook-receiver.js';

describe('webhooks in the dashboard settings', function () {
  this.timeout(90_000);
  let receiver: WebhookReceiver;
  let env: TestEnv;
  let browser: Browser;
  before(async () => {
    receiver = await WebhookReceiver.start();
    env = await createTestEnv({ workers: true, env: { URL_FETCH_ALLOWED_ORIGINS: receiver.origin } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await env?.close();
    await receiver?.close();
  });

  it('adds an endpoint, shows its secret once, sends a test event and lists its delivery', async () => {
    const alice = await env.createAccount();
    const page = await openSignedIn(browser, env, alice.id, '/dashboard/settings');
    const panel = page.getByRole('region', { name: 'Webhooks' });
    await panel.getByText('No endpoint yet.').waitFor();
    await panel.getByLabel('URL (http or https, reachable from the internet)').fill(receiver.url('/settings'));
    await panel.getByLabel('Description (optional)').fill('Backups');
    await panel.getByRole('checkbox', { name: /folder\.shared/ }).check();
    await panel.getByRole('button', { name: 'Add endpoint' }).click();

    const secret = (await panel.getByTestId('webhook-secret').textContent())!;
    expect(secret).to.match(/^whsec_/);
    const [endpoint] = (await env.api.get('/api/user/webhooks', { key: alice.apiKey })).body.data;
    expect(endpoint).to.include({ url: receiver.url('/settings'), description: 'Backups', enabled: true });
    expect(endpoint.events).to.deep.equal(['file.uploaded', 'folder.shared']);
    await expectAccessible(page, 'settings with a new webhook secret');
    await screenshot(page, 'webhooks-settings-secret');

    await panel.getByRole('button', { name: 'Send test' }).click();
    await page.getByText('Test event sent').waitFor();
    const [hook] = await receiver.waitFor('/settings');
    expect(verified(hook!, secret).type).to.equal('webhook.test');
    const row = panel.locator(`tr[data-delivery="${String(hook!.headers['webhook-id'])}"]`);
    await row.waitFor();
    expect(await row.locator('td').first().textContent()).to.equal('webhook.test');
    // Delivered by now (the receiver answered): Refresh shows it.
    await panel.getByRole('button', { name: 'Refresh' }).click();
    await row.getByText('Delivered').waitFor();
    expect(await row.locator('td').nth(3).textContent()).to.equal('204');
    await expectAccessible(page, 'settings with webhook deliveries');
    await screenshot(page, 'webhooks-settings-deliveries');

    // The secret is not shown again.
    await page.reload();
    await panel.getByText(receiver.url('/settings')).waitFor();
    expect(await panel.getByTestId('webhook-secret').count()).to.equal(0);
    expect(await page.content()).to.not.include(secret.slice(6));
    expect(consoleErrorsOf(page)).to.deep.equal([]);
    await page.context().close();
  });
});
