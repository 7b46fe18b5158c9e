import { expect } from 'chai';
import { useBrowserEnv } from '../helpers/browser.js';
import { consoleErrorsOf, expectAccessible, openSignedIn, screenshot } from '../helpers/dashboard.js';
import { createFolder } from '../helpers/folders.js';
import { pngBytes } from '../helpers/media.js';
import { upload } from '../helpers/uploads.js';

describe('share links in the dashboard', function () {
  this.timeout(90_000);
  const started = useBrowserEnv();

  it('makes a private file’s link with a view limit and password from the file page, shows its views, copies and revokes it', async () => {
    const { env, browser } = started;
    const alice = await env.createAccount();
    const uploaded = await upload(env, { key: alice.apiKey, bytes: pngBytes(900, 3), name: 'secret.png', json: true });
    const filename = uploaded.body.data.filename as string;
    await env.api.patch(`/api/user/images/${filename}/privacy`, { key: alice.apiKey, json: { isPrivate: true } });

    const page = await openSignedIn(browser, env, alice.id, `/dashboard/files/${encodeURIComponent(filename)}`);
    const panel = page.getByRole('region', { name: 'Share links' });
    await panel.getByLabel('Expires').selectOption({ label: '1 day' });
    await panel.getByLabel('View limit (empty: none)').fill('2');
    await panel.getByLabel('Password (optional, 4 or more characters)').fill('open sesame');
    await panel.getByRole('button', { name: 'Make share link' }).click();
    const field = panel.getByRole('textbox', { name: 'Share link' });
    await field.waitFor();
    const url = await field.inputValue();
    expect(url).to.match(/\/l\/[A-Za-z0-9_-]{43}$/);
    expect(await panel.getByTestId('share-link-limits').textContent()).to.match(/^0 of 2 views · expires .+ · password$/);
    await panel.getByRole('button', { name: 'Copy share link' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).to.equal(url);
    await expectAccessible(page, 'file page with a share link');
    await screenshot(page, 'share-links-file-page');

    expect((await fetch(url, { headers: { 'x-share-password': 'open sesame' } })).status).to.equal(200);
    await page.reload();
    await page.getByTestId('share-link-limits').waitFor();
    expect(await page.getByTestId('share-link-limits').textContent()).to.match(/^1 of 2 views/);

    await page.getByRole('button', { name: 'Revoke…' }).click();
    await page.getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByText('Share link revoked').waitFor();
    expect((await fetch(url, { headers: { 'x-share-password': 'open sesame' } })).status).to.equal(404);
    expect((await env.api.get('/api/user/share-links', { key: alice.apiKey })).body.data).to.deep.equal([]);
    expect(consoleErrorsOf(page)).to.deep.equal([]);
    await page.context().close();
  });

  it('makes a folder’s link from Share in its menu', async () => {
    const { env, browser } = started;
    const alice = await env.createAccount();
    const folderId = await createFolder(env, alice, 'Wedding');
    const page = await openSignedIn(browser, env, alice.id, '/dashboard');
    await page.getByRole('button', { name: 'Folder actions: Wedding' }).click();
    await page.getByRole('menuitem', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share folder: Wedding' });
    await dialog.getByRole('button', { name: 'Make share link' }).click();
    const url = await dialog.getByRole('textbox', { name: 'Share link' }).inputValue();
    expect(await dialog.getByTestId('share-link-limits').textContent()).to.equal('0 views · never expires');
    const [link] = (await env.api.get('/api/user/share-links', { key: alice.apiKey })).body.data;
    expect(link).to.include({ url, type: 'folder', folderId });
    await expectAccessible(page, 'folder settings with a share link');
    await page.context().close();
  });
});
