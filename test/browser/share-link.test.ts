import { expect } from 'chai';
import { useBrowserEnv } from '../helpers/browser.js';
import { consoleErrorsOf, expectAccessible, screenshot, watchConsole } from '../helpers/dashboard.js';
import { createFolder } from '../helpers/folders.js';
import { pngBytes } from '../helpers/media.js';
import { upload } from '../helpers/uploads.js';

describe('share link pages in a real browser', function () {
  this.timeout(90_000);
  const started = useBrowserEnv();

  async function uploadInto(apiKey: string, folderId: string, isPrivate: boolean) {
    const res = await upload(started.env, { key: apiKey, bytes: pngBytes(1500, isPrivate ? 1 : 2), name: 'photo.png', json: true });
    const filename = res.body.data.filename as string;
    await started.env.api.patch(`/api/user/images/${filename}/move`, { key: apiKey, json: { folderId } });
    if (isPrivate) await started.env.api.patch(`/api/user/images/${filename}/privacy`, { key: apiKey, json: { isPrivate: true } });
    return filename;
  }

  it('asks for the password with a labelled form, refuses a wrong one, and opens the folder’s album with the right one', async () => {
    const alice = await started.env.createAccount();
    const folderId = await createFolder(started.env, alice, 'Secret trip');
    const privateFile = await uploadInto(alice.apiKey, folderId, true);
    const res = await started.env.api.post('/api/user/share-links', { key: alice.apiKey, json: { folderId, password: 'correct horse' } });
    const link = res.body.data as { url: string };

    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await started.browser.newContext({ colorScheme });
      const page = await context.newPage();
      watchConsole(page);
      const first = await page.goto(link.url);
      expect(first!.status()).to.equal(401);
      expect(await page.content()).not.to.include('Secret trip').and.not.to.include(privateFile);
      await page.getByLabel('Password').fill('wrong horse');
      await page.getByRole('button', { name: 'Open' }).click();
      await page.waitForSelector('#share-password-error');
      expect(await page.textContent('#share-password-error')).to.equal('Wrong password');
      await expectAccessible(page, `share password page (${colorScheme})`);
      await screenshot(page, `share-password-${colorScheme}`);

      await page.getByLabel('Password').fill('correct horse');
      const [answer] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'GET' && r.url() === link.url), page.getByRole('button', { name: 'Open' }).click()]);
      expect(answer.status()).to.equal(200);
      await page.waitForSelector('h1:has-text("Secret trip")');
      expect(await page.getAttribute(`a[href="${link.url}/f/${privateFile}"]`, 'href')).to.be.a('string');
      const cookies = await context.cookies(link.url);
      expect(cookies).to.have.length(1);
      expect(cookies[0]).to.include({ httpOnly: true, sameSite: 'Lax', path: new URL(link.url).pathname });
      await expectAccessible(page, `share album page (${colorScheme})`);
      await screenshot(page, `share-album-${colorScheme}`);
      expect(consoleErrorsOf(page).filter((e) => !e.includes('401'))).to.deep.equal([]);
      await context.close();
    }
  });
});
