import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { files } from '../../shared/db/schema.js';
import { expiryTimerDelay } from '../../shared/services/uploads/expiry.js';
import { pngBytes } from '../helpers/media.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, getWithHost, storageUsedBy, storedObjects, upload } from '../helpers/uploads.js';
import { eventually } from '../helpers/eventually.js';


describe('GET /api/delete/:filename', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ workers: true });
  });
  after(() => env.close());

  async function uploadOne(key: string) {
    const res = await upload(env, { key, bytes: pngBytes(2500), json: true });
    expect(res.status).to.equal(200);
    return res.body.data as { url: string; filename: string; deletionUrl: string };
  }

  it('deletes with the deletion link alone: row gone, URL 404, storage given back, object removed by the job', async () => {
    const alice = await env.createAccount();
    const file = await uploadOne(alice.apiKey);
    expect(await storageUsedBy(env, alice.id)).to.equal(2500);
    const link = new URL(file.deletionUrl);
    const res = await env.api.get(link.pathname + link.search);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ success: true, message: 'File deleted' });
    expect(await fileRowsOf(env, alice.id)).to.have.length(0);
    expect((await getWithHost(file.url)).status).to.equal(404);
    expect(await storageUsedBy(env, alice.id)).to.equal(0);
    await eventually(async () => (await storedObjects(env)).length === 0);
    expect((await env.api.get(link.pathname + link.search)).status).to.equal(404);
  });

  it('deletes with apiKey in the query or the x-api-key header', async () => {
    const alice = await env.createAccount();
    const a = await uploadOne(alice.apiKey);
    const b = await uploadOne(alice.apiKey);
    expect((await env.api.get(`/api/delete/${a.filename}?apiKey=${alice.apiKey}`)).status).to.equal(200);
    expect((await env.api.get(`/api/delete/${b.filename}`, { key: alice.apiKey })).status).to.equal(200);
    expect(await fileRowsOf(env, alice.id)).to.have.length(0);
  });

  it('never deletes another account\'s file (404) and refuses a token for another file', async () => {
    const alice = await env.createAccount();
    const bob = await env.createAccount();
    const file = await uploadOne(alice.apiKey);
    const other = await uploadOne(bob.apiKey);
    expect((await env.api.get(`/api/delete/${file.filename}?apiKey=${bob.apiKey}`)).status).to.equal(404);
    const token = new URL(other.deletionUrl).searchParams.get('token');
    expect((await env.api.get(`/api/delete/${file.filename}?token=${token}`)).status).to.equal(404);
    expect((await env.api.get(`/api/delete/${file.filename}?token=${'0'.repeat(32)}`)).status).to.equal(404);
    expect(await fileRowsOf(env, alice.id)).to.have.length(1);
    expect((await getWithHost(file.url)).status).to.equal(200);
  });

  it('answers 401 without credentials and for an unknown key', async () => {
    const alice = await env.createAccount();
    const file = await uploadOne(alice.apiKey);
    expect((await env.api.get(`/api/delete/${file.filename}`)).status).to.equal(401);
    expect((await env.api.get(`/api/delete/${file.filename}?apiKey=hfs_unknown`)).status).to.equal(401);
    expect(await fileRowsOf(env, alice.id)).to.have.length(1);
  });
});

describe('expiry', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ workers: true });
  });
  after(() => env.close());

  it('records the expiry, schedules a delayed job at that time, and reports it', async () => {
    const alice = await env.createAccount();
    const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(), fields: { expiry: '1h' }, json: true });
    expect(res.status).to.equal(200);
    expect(res.body.data.expiry).to.equal('1h');
    const [row] = await fileRowsOf(env, alice.id);
    expect(row!.expiresAt!.getTime()).to.be.closeTo(Date.now() + 3600_000, 60_000);
    const job = await env.container.jobs.queue('expiry').getJob(`expire-${row!.id}`);
    expect(job?.name).to.equal('file.expire');
    expect(job!.opts.delay).to.be.closeTo(3600_000, 60_000);
    expect(await job!.getState()).to.equal('delayed');
  });

  it('accepts an empty expiry as never', async () => {
    const alice = await env.createAccount();
    const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(), fields: { expiry: '' }, json: true });
    expect(res.body.data.expiry).to.equal(null);
  });

  it('stops serving an expired file at once, and the job deletes it and its object', async () => {
    const alice = await env.createAccount();
    const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(700), fields: { expiry: '1h' }, json: true });
    const [row] = await fileRowsOf(env, alice.id);
    await env.container.db.update(files).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(files.id, row!.id));
    expect((await getWithHost(res.body.data.url)).status).to.equal(404);

    // Its delayed job comes due (promoted here instead of waiting an hour).
    await (await env.container.jobs.queue('expiry').getJob(`expire-${row!.id}`))!.promote();
    await eventually(async () => (await fileRowsOf(env, alice.id)).length === 0);
    expect(await storageUsedBy(env, alice.id)).to.equal(0);
    await eventually(async () => (await env.container.storage.head(row!.objectKey)) === null);
  });

  it('one timer deletes every file due by then, of every account, gives their storage back and drops their timers', async () => {
    const alice = await env.createAccount();
    const bob = await env.createAccount();
    for (const key of [alice.apiKey, alice.apiKey, bob.apiKey]) await upload(env, { key, bytes: pngBytes(900), fields: { expiry: '1h' } });
    await upload(env, { key: bob.apiKey, bytes: pngBytes(600), fields: { expiry: '6h' } });
    const due = [...(await fileRowsOf(env, alice.id)), ...(await fileRowsOf(env, bob.id))].filter((row) => row.expiry === '1h');
    for (const row of due) await env.container.db.update(files).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(files.id, row.id));
    const queue = env.container.jobs.queue('expiry');

    await (await queue.getJob(`expire-${due[0]!.id}`))!.promote();
    await eventually(async () => (await fileRowsOf(env, alice.id)).length === 0 && (await fileRowsOf(env, bob.id)).length === 1);
    expect(await storageUsedBy(env, alice.id)).to.equal(0);
    expect(await storageUsedBy(env, bob.id)).to.equal(600);
    await eventually(async () => (await Promise.all(due.slice(1).map((row) => queue.getJob(`expire-${row.id}`)))).every((job) => job === undefined));
    await eventually(async () => (await Promise.all(due.map((row) => env.container.storage.head(row.objectKey)))).every((head) => head === null));
  });

  it('times each timer to the first 5-second boundary at or after its file is due', () => {
    expect(expiryTimerDelay(new Date(10_000), 9_000)).to.equal(1000);
    expect(expiryTimerDelay(new Date(10_001), 9_000)).to.equal(6000);
    expect(expiryTimerDelay(new Date(10_000), 12_000)).to.equal(0);
  });

  it('the sweep deletes expired files whose job was lost', async () => {
    const alice = await env.createAccount();
    await upload(env, { key: alice.apiKey, bytes: pngBytes(), fields: { expiry: '6h' } });
    await upload(env, { key: alice.apiKey, bytes: pngBytes() });
    const rows = await fileRowsOf(env, alice.id);
    const expiring = rows.find((r) => r.expiresAt)!;
    await env.container.jobs.queue('expiry').remove(`expire-${expiring.id}`);
    await env.container.db.update(files).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(files.id, expiring.id));
    expect(await env.container.services.files.sweepExpired()).to.equal(1);
    const left = await fileRowsOf(env, alice.id);
    expect(left.map((r) => r.id)).to.deep.equal(rows.filter((r) => !r.expiresAt).map((r) => r.id));
  });

  it('registers the sweep to run every minute', async () => {
    const schedulers = await env.container.jobs.queue('expiry').getJobSchedulers();
    expect(schedulers.map((s) => [s.key, s.name, s.every])).to.deep.include(['expire-sweep', 'files.expire-sweep', 60_000]);
  });
});

describe('GET /api/upload/config', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv();
  });
  after(() => env.close());

  it('lists the expiry options and the size limits, registered = free without a key', async () => {
    const res = await env.api.get('/api/upload/config');
    expect(res.status).to.equal(200);
    expect(res.body).not.to.have.property('success');
    expect(res.body.expiryOptions.map((o: { value: string }) => o.value)).to.deep.equal(['', '1h', '6h', '1d', '7d', '30d']);
    for (const option of res.body.expiryOptions) expect(option.label).to.be.a('string').and.not.equal('');
    expect(res.body.maxFileSize).to.deep.equal({ anonymous: 83886080, free: 209715200, pro: 536870912, registered: 209715200 });
  });

  it('reports the caller\'s plan as registered with a key', async () => {
    const pro = await env.createAccount({ plan: 'pro' });
    const res = await env.api.get('/api/upload/config', { key: pro.apiKey });
    expect(res.body.maxFileSize.registered).to.equal(536870912);
  });
});
