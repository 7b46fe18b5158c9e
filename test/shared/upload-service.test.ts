import { expect } from 'chai';
import { Readable } from 'node:stream';
import { UploadService } from '../../shared/services/uploads/upload.service.js';
import { pngBytes } from '../helpers/media.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, storageUsedBy, storedObjects } from '../helpers/uploads.js';

describe('UploadService: a generated name taken by a concurrent upload', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv();
  });
  after(() => env.close());

  it('answers 409, removes the second object and charges nothing for it', async () => {
    const c = env.container;
    // The same generator the service uses, pinned to one name to force the collision.
    const uploads = new UploadService({
      storage: c.storage,
      rates: c.rateLimits,
      charges: c.repositories.charges,
      plans: c.plans,
      urls: c.urls,
      jobs: c.jobs,
      moderation: c.services.moderation,
      thumbnails: c.services.thumbnails,
      events: c.services.events,
      logger: c.logger,
      baseUrl: c.config.baseUrl,
      generateFilename: (ext) => `taken.${ext}`,
    });
    const alice = await env.createAccount();
    const account = (await c.repositories.accounts.findById(alice.id))!;
    const uploader = { account, folderId: null };
    const options = { originalName: 'a.png', expiry: null, source: 'api' };

    const first = await uploads.upload(uploader, Readable.from([pngBytes(1000)]), options);
    expect(first.filename).to.equal('taken.png');
    let error: unknown;
    try {
      await uploads.upload(uploader, Readable.from([pngBytes(1500, 3)]), options);
    } catch (err) {
      error = err;
    }
    expect(error).to.include({ status: 409 });
    expect(await fileRowsOf(env, alice.id)).to.have.length(1);
    expect(await storageUsedBy(env, alice.id)).to.equal(1000);
    expect(await c.services.accounts.uploadsToday(alice.id)).to.equal(1);
    expect(await storedObjects(env)).to.have.length(1);
  });
});
