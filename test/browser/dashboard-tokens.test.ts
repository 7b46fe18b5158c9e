import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { useBrowserEnv } from '../helpers/browser.js';
import { consoleErrorsOf, expectAccessible, openSignedIn, screenshot } from '../helpers/dashboard.js';
import { pngBytes } from '../helpers/media.js';
import { upload } from '../helpers/uploads.js';

// Issue 41: the settings page lists, creates (showing the secret once) and revokes access tokens, and
// hands out uploader configs with a new upload-only token.

describe('dashboard: access tokens in a real browser', function () {
  this.timeout(120_000);
  const ctx = useBrowserEnv();

  it('creates a token showing its secret once, lists it, and Revoke stops it at once', async () => {
    const { env, browser } = ctx;
    const alice = await env.createAccount();
    const page = await openSignedIn(browser, env, alice.id, '/dashboard/settings');
    const section = page.getByRole('region', { name: 'Access tokens' });
    await section.getByText('No token yet.').waitFor();

    await section.getByRole('textbox', { name: 'Name' }).fill('Backups');
    // files:write is ticked by default; add reading.
    await section.getByLabel('List your files and look at them').check();
    await section.getByRole('button', { name: 'Create token' }).click();
    const secret = section.getByTestId('new-token');
    await secret.waitFor();
    const token = (await secret.textContent())!.trim();
    expect(token).to.match(/^hfs_pat_[0-9A-Za-z]{43}$/);
    const item = section.locator('.assistant', { hasText: 'Backups' });
    await item.getByText('May: List your files and look at them; Upload, rename and move your files.', { exact: false }).waitFor();
    await expectAccessible(page, 'settings with a new token');
    await screenshot(page, 'settings-access-tokens');

    expect((await env.api.get('/api/user/dashboard', { key: token })).status).to.equal(200);
    expect((await upload(env, { key: token, bytes: pngBytes(300, 1) })).status).to.equal(200);

    // Shown once: a fresh visit lists the token without its secret.
    await page.reload();
    await section.locator('.assistant', { hasText: 'Backups' }).waitFor();
    expect(await page.content()).not.to.include(token);

    await section.locator('.assistant', { hasText: 'Backups' }).getByRole('button', { name: 'Revoke' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke Backups?' });
    await dialog.getByRole('button', { name: 'Revoke token' }).click();
    await page.getByText('Backups is revoked: it no longer works anywhere.').waitFor();
    await section.getByText('No token yet.').waitFor();
    expect((await env.api.get('/api/user/dashboard', { key: token })).status).to.equal(401);
    expect(consoleErrorsOf(page)).to.deep.equal([]);
    await page.context().close();
  });

  it('downloads an uploader config carrying a new upload-only token, and lists that token', async () => {
    const { env, browser } = ctx;
    const bob = await env.createAccount();
    const page = await openSignedIn(browser, env, bob.id, '/dashboard/settings');
    const section = page.getByRole('region', { name: 'Access tokens' });
    await section.getByText('No token yet.').waitFor();
    const download = page.waitForEvent('download');
    await section.getByRole('button', { name: 'ShareX (.sxcu)' }).click();
    const saved = await download;
    expect(saved.suggestedFilename()).to.match(/\.sxcu$/);
    const sharex = JSON.parse(await readFile((await saved.path())!, 'utf8'));
    const token = sharex.Headers['x-api-key'] as string;
    expect(token).to.match(/^hfs_pat_/);
    await section.locator('.assistant', { hasText: 'ShareX uploads' }).getByText('May: Upload, rename and move your files.', { exact: false }).waitFor();
    expect((await upload(env, { key: token, bytes: pngBytes(300, 2) })).status).to.equal(200);
    const refused = await env.api.get('/api/user/dashboard', { key: token });
    expect(refused.status).to.equal(403);
    expect(refused.body.requiredScope).to.equal('files:read');
    expect(consoleErrorsOf(page)).to.deep.equal([]);
    await page.context().close();
  });
});
