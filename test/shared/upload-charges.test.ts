import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { ChargeOutcome, NewFile } from '../../shared/repositories/upload-charge.repository.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, storageUsedBy } from '../helpers/uploads.js';

const ROOMY = { dailyLimit: 1000, storageLimit: 10 ** 12 };

function newFile(accountId: string, filename: string, size = 100): NewFile {
  return {
    accountId,
    folderId: null,
    filename,
    originalName: `${filename}-original`,
    objectKey: `objects/${randomUUID()}`,
    shortCode: randomUUID().slice(0, 7),
    size,
    mimeType: 'image/png',
    source: 'api',
    urlFormat: 'standard',
    expiresAt: null,
    expiry: null,
    deletionTokenHash: randomUUID(),
  };
}

describe('UploadChargeRepository.insertCharged: concurrent uploads of one account', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv();
  });
  after(() => env.close());

  /** Each charge's answer: 'ok', the reason it was refused, or the status of what it threw. */
  const settle = (promises: Promise<ChargeOutcome>[]) =>
    Promise.allSettled(promises).then((all) =>
      all.map((r) => (r.status === 'rejected' ? ((r.reason as { status?: number }).status ?? 'error') : r.value.ok ? 'ok' : r.value.reason)),
    );
  /** The row a charge recorded; a refusal fails the test. */
  const recorded = async (charge: Promise<ChargeOutcome>) => {
    const outcome = await charge;
    if (!outcome.ok) expect.fail(`refused: ${outcome.reason}`);
    return outcome.value;
  };
  // Concurrent charges run on several connections and finish in any order: what counts is how many.
  const tally = (outcomes: unknown[]) => outcomes.map(String).sort();

  it('records and charges every one of them', async () => {
    const alice = await env.createAccount({ plan: 'pro' });
    const names = Array.from({ length: 8 }, (_, i) => `together-${i}.png`);
    const rows = await Promise.all(names.map((name, i) => recorded(env.container.repositories.charges.insertCharged(newFile(alice.id, name, 100 + i), ROOMY))));
    expect(rows.map((r) => r.filename)).to.deep.equal(names);
    expect(rows.map((r) => r.size)).to.deep.equal(names.map((_, i) => 100 + i));
    expect(await fileRowsOf(env, alice.id)).to.have.length(8);
    expect(await storageUsedBy(env, alice.id)).to.equal(8 * 100 + 28);
    expect(await env.container.services.accounts.uploadsToday(alice.id)).to.equal(8);
  });

  it('takes exactly the room left under the daily limit when they do not all fit', async () => {
    const bob = await env.createAccount({ plan: 'pro' });
    const files = env.container.repositories.charges;
    await files.insertCharged(newFile(bob.id, 'first.png'), { ...ROOMY, dailyLimit: 5 });
    const outcomes = await settle(Array.from({ length: 8 }, (_, i) => files.insertCharged(newFile(bob.id, `more-${i}.png`), { ...ROOMY, dailyLimit: 5 })));
    expect(tally(outcomes)).to.deep.equal(tally(['ok', 'ok', 'ok', 'ok', ...Array<string>(4).fill('daily_limit_reached')]));
    expect(await fileRowsOf(env, bob.id)).to.have.length(5);
    expect(await storageUsedBy(env, bob.id)).to.equal(500);
    expect(await env.container.services.accounts.uploadsToday(bob.id)).to.equal(5);
  });

  it('takes exactly what fits the storage limit when they do not all fit', async () => {
    const carol = await env.createAccount({ plan: 'pro' });
    const outcomes = await settle(
      Array.from({ length: 6 }, (_, i) => env.container.repositories.charges.insertCharged(newFile(carol.id, `big-${i}.png`, 300), { ...ROOMY, storageLimit: 1000 })),
    );
    expect(tally(outcomes)).to.deep.equal(tally(['ok', 'ok', 'ok', 'storage_full', 'storage_full', 'storage_full']));
    expect(await storageUsedBy(env, carol.id)).to.equal(900);
    expect(await fileRowsOf(env, carol.id)).to.have.length(3);
  });

  it('refuses only the upload whose name is taken and records the rest', async () => {
    const dave = await env.createAccount({ plan: 'pro' });
    const files = env.container.repositories.charges;
    await files.insertCharged(newFile(dave.id, 'taken.png'), ROOMY);
    const outcomes = await settle(['a.png', 'taken.png', 'b.png'].map((name) => files.insertCharged(newFile(dave.id, name), ROOMY)));
    expect(outcomes).to.deep.equal(['ok', 'taken', 'ok']);
    expect((await fileRowsOf(env, dave.id)).map((r) => r.filename).sort()).to.deep.equal(['a.png', 'b.png', 'taken.png']);
    expect(await storageUsedBy(env, dave.id)).to.equal(300);
    expect(await env.container.services.accounts.uploadsToday(dave.id)).to.equal(3);
  });

  it('keeps the expiry, folder and names of every upload', async () => {
    const erin = await env.createAccount({ plan: 'pro' });
    const account = (await env.container.repositories.accounts.findById(erin.id))!;
    const folder = await env.container.services.folders.create(account, 'Trips');
    const expiresAt = new Date(Date.now() + 3_600_000);
    const rows = await Promise.all([
      recorded(env.container.repositories.charges.insertCharged({ ...newFile(erin.id, 'x.png'), folderId: folder.id, expiresAt, expiry: '1h', originalName: 'Ünïcode “name”.png' }, ROOMY)),
      recorded(env.container.repositories.charges.insertCharged(newFile(erin.id, 'y.png'), ROOMY)),
    ]);
    expect(rows[0]).to.include({ folderId: folder.id, expiry: '1h', originalName: 'Ünïcode “name”.png' });
    expect(rows[0]!.expiresAt!.getTime()).to.equal(expiresAt.getTime());
    expect(rows[1]).to.include({ folderId: null, expiry: null, expiresAt: null });
  });

  it('stores half a surrogate pair (a name cut inside an emoji) as U+FFFD, alone and among others', async () => {
    const fay = await env.createAccount({ plan: 'pro' });
    const files = env.container.repositories.charges;
    const cut = `${'a'.repeat(10)}\ud83d`;
    const alone = await recorded(files.insertCharged({ ...newFile(fay.id, 'alone.png'), originalName: cut }, ROOMY));
    const batch = await Promise.all([
      recorded(files.insertCharged({ ...newFile(fay.id, 'one.png'), originalName: cut }, ROOMY)),
      recorded(files.insertCharged(newFile(fay.id, 'two.png'), ROOMY)),
    ]);
    expect(alone.originalName).to.equal(`${'a'.repeat(10)}\ufffd`);
    expect(batch[0]!.originalName).to.equal(`${'a'.repeat(10)}\ufffd`);
  });

  it('fails only the upload whose text holds a NUL, with a 400', async () => {
    const gus = await env.createAccount({ plan: 'pro' });
    const files = env.container.repositories.charges;
    const outcomes = await settle([
      files.insertCharged({ ...newFile(gus.id, 'nul.png'), source: 'a\u0000b' }, ROOMY),
      files.insertCharged(newFile(gus.id, 'fine.png'), ROOMY),
    ]);
    expect(outcomes).to.deep.equal([400, 'ok']);
    expect((await fileRowsOf(env, gus.id)).map((r) => r.filename)).to.deep.equal(['fine.png']);
    expect(await storageUsedBy(env, gus.id)).to.equal(100);
  });
});
