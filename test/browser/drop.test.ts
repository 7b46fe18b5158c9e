import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pngBytes } from '../helpers/media.js';
import { useBrowserEnv } from '../helpers/browser.js';
import { fileRowsOf } from '../helpers/uploads.js';

describe('file drop page in a real browser', function () {
  this.timeout(90_000);
  const started = useBrowserEnv();

  async function newLink(key: string, json: Record<string, unknown>) {
    const res = await started.env.api.post('/api/user/drop-links', { key, json });
    return res.body.data as { id: string; url: string };
  }

  it('shows who asks and the limits, sends the chosen file with progress and says it was delivered', async () => {
    const alice = await started.env.createAccount();
    const link = await newLink(alice.apiKey, { note: 'Your passport scan, please', maxSizeBytes: 1_000_000 });
    const page = await started.browser.newPage();
    await page.goto(link.url);
    expect(await page.textContent('#drop-requester')).to.equal(alice.username);
    expect(await page.textContent('#drop-note')).to.equal('Your passport scan, please');
    expect(await page.textContent('#drop-limits')).to.include('977 KB');

    const file = path.join(started.env.dataDir, 'passport.png');
    await writeFile(file, pngBytes(300_000, 5));
    await page.setInputFiles('#drop-file', file);
    await page.click('#drop-form button[type=submit]');
    await page.waitForSelector('#drop-result:not([hidden])');
    expect(await page.textContent('#drop-result')).to.include('passport.png').and.include(alice.username);
    expect(await page.getAttribute('#drop-progress', 'value')).to.equal('100');

    const [row] = await fileRowsOf(started.env, alice.id);
    expect(row).to.include({ originalName: 'passport.png', size: 300_000, source: 'drop' });
    const status = await started.env.api.get(`/api/user/drop-links/${link.id}`, { key: alice.apiKey });
    expect(status.body.data.status).to.equal('received');
    expect(status.body.data.file.filename).to.equal(row!.filename);
    await page.close();
  });

  it('takes a file dropped onto the zone and shows the refusal of a spent link', async () => {
    const bob = await started.env.createAccount();
    const link = await newLink(bob.apiKey, {});
    const page = await started.browser.newPage();
    await page.goto(link.url);
    // A real drag from the desktop cannot be scripted: dispatch the drop event with a DataTransfer holding a file.
    // (a string, since the tests are compiled without the DOM's types)
    const transfer = await page.evaluateHandle(`(() => {
      const dt = new DataTransfer();
      const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(200).fill(1)]);
      dt.items.add(new File([png], 'dropped.png', { type: 'image/png' }));
      return dt;
    })()`);
    await page.dispatchEvent('#drop-zone', 'drop', { dataTransfer: transfer });
    expect(await page.textContent('#drop-status')).to.include('dropped.png');
    await page.click('#drop-form button[type=submit]');
    await page.waitForSelector('#drop-result:not([hidden])');
    expect((await fileRowsOf(started.env, bob.id)).map((r) => r.originalName)).to.deep.equal(['dropped.png']);

    // The same page again: the link is spent.
    const again = await page.goto(link.url);
    expect(again!.status()).to.equal(410);
    expect(await page.textContent('#drop-result')).to.include('already been used');
    await page.close();
  });
});
