import { expect } from 'chai';
import sharp from 'sharp';
import { createFolder } from '../helpers/folders.js';
import { useBrowserEnv } from '../helpers/browser.js';
import { upload } from '../helpers/uploads.js';

describe('shared album in a real browser', function () {
  this.timeout(90_000);
  const started = useBrowserEnv();

  it('opens an album page and shows every image from its own URL', async () => {
    const alice = await started.env.createAccount();
    const folderId = await createFolder(started.env, alice, 'Holidays');
    const images = [
      { name: 'beach.png', bytes: await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3090e0' } }).png().toBuffer(), width: 64 },
      { name: 'forest.jpg', bytes: await sharp({ create: { width: 40, height: 30, channels: 3, background: '#20a040' } }).jpeg().toBuffer(), width: 40 },
    ];
    const urls: string[] = [];
    for (const image of images) {
      const res = await upload(started.env, { key: alice.apiKey, bytes: image.bytes, name: image.name, json: true });
      expect(res.status).to.equal(200);
      urls.push(res.body.data.url);
      const move = await started.env.api.patch(`/api/user/images/${res.body.data.filename}/move`, { key: alice.apiKey, json: { folderId } });
      expect(move.status).to.equal(200);
    }
    const shared = await started.env.api.post(`/api/user/folders/${folderId}/share`, { key: alice.apiKey });
    expect(shared.status).to.equal(200);

    const page = await started.browser.newPage();
    const response = await page.goto(shared.body.data.url);
    expect(response!.status()).to.equal(200);
    expect(await page.textContent('h1')).to.equal('Holidays');
    // Run in the page (this project compiles without the DOM types). A function, not a string: the
    // page's CSP forbids eval, which a string predicate needs.
    await page.waitForFunction(() => {
      const { document } = globalThis as unknown as { document: { images: Iterable<{ complete: boolean }> } };
      return [...document.images].every((img) => img.complete);
    });
    const shown = await page.$$eval('.album-grid img', (imgs) =>
      imgs.map((img) => {
        const { currentSrc, naturalWidth } = img as unknown as { currentSrc: string; naturalWidth: number };
        return { src: currentSrc, width: naturalWidth };
      }),
    );
    // Newest first.
    expect(shown).to.deep.equal([
      { src: urls[1], width: images[1]!.width },
      { src: urls[0], width: images[0]!.width },
    ]);
    await page.close();
  });
});
