import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { files, notifications } from '../../shared/db/schema.js';
import { jobIds } from '../../shared/jobs.js';
import { createRedis } from '../../shared/redis.js';
import { eventually } from '../helpers/eventually.js';
import { pngBytes } from '../helpers/media.js';
import { freePort } from '../helpers/ports.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { type Answer, startFakeVision } from '../helpers/fake-vision.js';
import { makeTestMedia } from '../helpers/test-media.js';
import { getWithHost, upload } from '../helpers/uploads.js';

describe('moderation in the upload pipeline', function () {
  this.timeout(60_000);
  let env: TestEnv;
  let vision: Awaited<ReturnType<typeof startFakeVision>>;

  before(async () => {
    const port = await freePort();
    vision = await startFakeVision(port);
    env = await createTestEnv({ workers: true, env: { MODERATION_ENABLED: 'true', VISION_URL: `http://127.0.0.1:${port}` } });
  });
  after(async () => {
    await env.close();
    await vision.close();
  });

  async function uploadAndJudge(answer: Answer) {
    vision.state.answer = answer;
    const alice = await env.createAccount();
    const bytes = pngBytes(3000, Math.floor(Math.random() * 250));
    const res = await upload(env, { key: alice.apiKey, bytes, json: true });
    expect(res.status).to.equal(200);
    const row = async () => (await env.container.db.select().from(files).where(eq(files.accountId, alice.id)))[0]!;
    await eventually(async () => (await row()).moderatedAt !== null);
    return { alice, bytes, url: res.body.data.url as string, row: await row() };
  }

  it('sends the stored bytes to the service', async () => {
    const { bytes } = await uploadAndJudge('allow');
    expect(vision.state.received.at(-1)!.includes(bytes)).to.equal(true);
  });

  it('hard_block quarantines the file (451) and notifies its owner; an administrator can release it', async () => {
    const { alice, url, row } = await uploadAndJudge('hard_block');
    expect(row).to.include({ moderationVerdict: 'hard_block', quarantined: true, moderationScore: 95 });
    const served = await getWithHost(url);
    expect(served.status).to.equal(451);
    const [notification] = await env.container.db.select().from(notifications).where(eq(notifications.accountId, alice.id));
    expect(notification).to.include({ type: 'moderation', read: false });
    expect(notification!.data).to.deep.equal({ filename: row.filename });
    expect((await env.container.services.moderation.flagged()).map((f) => f.id)).to.include(row.id);

    await env.container.services.moderation.release(row.id);
    expect((await getWithHost(url)).status).to.equal(200);
    expect((await env.container.services.moderation.flagged()).map((f) => f.id)).not.to.include(row.id);
  });

  it('soft_flag marks the file for review and keeps serving it', async () => {
    const { url, row } = await uploadAndJudge('soft_flag');
    expect(row).to.include({ moderationVerdict: 'soft_flag', quarantined: false });
    expect((await getWithHost(url)).status).to.equal(200);
    expect((await env.container.services.moderation.flagged()).find((f) => f.id === row.id)).to.include({ verdict: 'soft_flag', quarantined: false });
  });

  it('allow changes nothing', async () => {
    const { url, row } = await uploadAndJudge('allow');
    expect(row).to.include({ moderationVerdict: 'allow', quarantined: false });
    expect((await getWithHost(url)).status).to.equal(200);
    expect((await env.container.services.moderation.flagged()).map((f) => f.id)).not.to.include(row.id);
  });

  it('tells every web process to drop cached copies only when the verdict changes what is served', async () => {
    // Listen as another web process would.
    const announced: string[] = [];
    const listener = createRedis(env.container.config.redisUrl, 'subscriber');
    listener.on('message', (_channel: string, message: string) => announced.push(...(JSON.parse(message) as { keys: string[] }).keys));
    await listener.subscribe(env.container.services.cachePurges.channel);
    try {
      const purgedFor = (filename: string) => announced.some((key) => key.endsWith(`:${filename}`));
      const allowed = await uploadAndJudge('allow');
      const unjudged = await uploadAndJudge('refuse');
      const blocked = await uploadAndJudge('hard_block');
      await eventually(async () => purgedFor(blocked.row.filename));
      expect(purgedFor(allowed.row.filename)).to.equal(false);
      expect(purgedFor(unjudged.row.filename)).to.equal(false);
    } finally {
      listener.disconnect();
    }
  });

  it('queues one check per stored content under one id; a check finds content judged already and leaves it', async () => {
    const { row } = await uploadAndJudge('allow');
    const sent = vision.state.received.length;
    const queue = env.container.jobs.queue('moderation');
    const jobId = jobIds.moderationCheck(row.id, row.objectKey);
    const first = await queue.getJob(jobId);
    expect(first?.data).to.deep.equal({ fileId: row.id, objectKey: row.objectKey });
    // Queued again: the same job, not a second one.
    await env.container.services.moderation.enqueue(row);
    expect((await queue.getJobs(['waiting', 'active', 'completed', 'delayed'])).filter((job) => job.data.fileId === row.id)).to.have.length(1);
    // Run again by hand (a retry, a second worker): the verdict stands and nothing is sent.
    expect(await env.container.services.moderation.check(row.id, row.objectKey)).to.equal('judged');
    expect(vision.state.received.length).to.equal(sent);
  });

  it('records content the service cannot judge without retrying', async () => {
    const { row } = await uploadAndJudge('refuse');
    expect(row.moderationVerdict).to.equal(null);
    expect(row.quarantined).to.equal(false);
  });

  it('re-queues a check that was lost, once, and leaves files it does not judge alone', async () => {
    vision.state.answer = 'down';
    const alice = await env.createAccount();
    await upload(env, { key: alice.apiKey, bytes: pngBytes(1000, 79), json: true });
    await upload(env, { key: alice.apiKey, bytes: Buffer.from('plain text, never moderated\n'), name: 'notes.txt', json: true });
    const [image] = (await env.container.db.select().from(files).where(eq(files.accountId, alice.id))).filter((f) => f.mimeType === 'image/png');
    const jobId = jobIds.moderationCheck(image!.id, image!.objectKey);
    const queue = env.container.jobs.queue('moderation');
    await eventually(async () => ((await queue.getJob(jobId))?.attemptsMade ?? 0) >= 1);
    await (await queue.getJob(jobId))!.remove(); // lost, as in a Redis outage

    const moderation = env.container.services.moderation;
    expect(await moderation.requeueLost(Date.now())).to.equal(0); // too recent to call lost
    const later = Date.now() + 16 * 60_000;
    expect(await moderation.requeueLost(later)).to.be.at.least(1);
    expect(await queue.getJob(jobId)).not.to.equal(undefined);
    expect(await moderation.requeueLost(later)).to.equal(0); // queued now: not twice

    vision.state.answer = 'allow';
    const job = await queue.getJob(jobId);
    if ((await job!.getState()) === 'delayed') await job!.promote();
    await eventually(async () => (await env.container.db.select().from(files).where(eq(files.id, image!.id)))[0]!.moderationVerdict === 'allow');
  });

  it('sends MKV videos and APNG animations too, whatever their stored type is called', async () => {
    const media = makeTestMedia();
    try {
      for (const name of ['clip.mkv', 'anim.apng']) {
        vision.state.answer = 'hard_block';
        const alice = await env.createAccount();
        const res = await upload(env, { key: alice.apiKey, bytes: media.read(name), name, json: true });
        expect(res.status, name).to.equal(200);
        await eventually(async () => (await env.container.db.select().from(files).where(eq(files.accountId, alice.id)))[0]!.quarantined);
        expect((await getWithHost(res.body.data.url)).status, name).to.equal(451);
      }
    } finally {
      rmSync(media.dir, { recursive: true, force: true });
    }
  });

  it('does not send a file larger than the service accepts (its /info), and records it as unjudged', async () => {
    vision.state.answer = 'hard_block';
    const sent = vision.state.received.length;
    const alice = await env.createAccount();
    const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(1_500_000, 3), json: true });
    expect(res.status).to.equal(200);
    const row = async () => (await env.container.db.select().from(files).where(eq(files.accountId, alice.id)))[0]!;
    await eventually(async () => (await row()).moderatedAt !== null);
    expect(await row()).to.include({ moderationVerdict: null, quarantined: false });
    expect(vision.state.received.length).to.equal(sent);
    expect((await getWithHost(res.body.data.url)).status).to.equal(200);
  });

  it('retries an answer that says nothing about the content (404: a wrong VISION_URL)', async () => {
    vision.state.answer = 'missing';
    const alice = await env.createAccount();
    await upload(env, { key: alice.apiKey, bytes: pngBytes(1000, 78), json: true });
    const [row] = await env.container.db.select().from(files).where(eq(files.accountId, alice.id));
    const jobId = jobIds.moderationCheck(row!.id, row!.objectKey);
    const queue = env.container.jobs.queue('moderation');
    await eventually(async () => ((await queue.getJob(jobId))?.attemptsMade ?? 0) >= 1);
    expect(await (await queue.getJob(jobId))!.getState()).to.equal('delayed');
    expect((await env.container.db.select().from(files).where(eq(files.id, row!.id)))[0]!.moderatedAt).to.equal(null);
  });

  it('retries with backoff while the service is down, serving the file meanwhile', async () => {
    vision.state.answer = 'down';
    const alice = await env.createAccount();
    const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(1000, 77), json: true });
    const [row] = await env.container.db.select().from(files).where(eq(files.accountId, alice.id));
    const jobId = jobIds.moderationCheck(row!.id, row!.objectKey);
    const queue = env.container.jobs.queue('moderation');
    await eventually(async () => ((await queue.getJob(jobId))?.attemptsMade ?? 0) >= 1);
    expect(await (await queue.getJob(jobId))!.getState()).to.equal('delayed');
    expect((await getWithHost(res.body.data.url)).status).to.equal(200);

    vision.state.answer = 'hard_block';
    await (await queue.getJob(jobId))!.promote();
    await eventually(async () => (await env.container.db.select().from(files).where(eq(files.id, row!.id)))[0]!.quarantined);
    expect((await getWithHost(res.body.data.url)).status).to.equal(451);
  });

  it('keeps a quarantined file blocked through a replace until the new content is judged', async () => {
    const { alice, url, row } = await uploadAndJudge('hard_block');
    expect((await getWithHost(url)).status).to.equal(451);
    vision.state.answer = 'down';
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(pngBytes(1800, 98))]), 'v2.png');
    expect((await env.api.patch(`/api/user/images/${row.filename}/replace`, { key: alice.apiKey, body: form })).status).to.equal(200);
    expect((await getWithHost(url)).status).to.equal(451);
    // Still blocked, so still on the administrators' list, though its new content has no verdict yet.
    expect((await env.container.services.moderation.flagged()).map((f) => f.id)).to.include(row.id);
    vision.state.answer = 'allow';
    const queue = env.container.jobs.queue('moderation');
    const [after] = await env.container.db.select().from(files).where(eq(files.id, row.id));
    const job = await queue.getJob(jobIds.moderationCheck(row!.id, after!.objectKey));
    await eventually(async () => ['delayed', 'waiting', 'completed'].includes(await job!.getState()));
    if ((await job!.getState()) === 'delayed') await job!.promote();
    await eventually(async () => (await getWithHost(url)).status === 200);
  });

  it('checks the new content after a replace', async () => {
    const { alice, url, row } = await uploadAndJudge('allow');
    vision.state.answer = 'hard_block';
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(pngBytes(2000, 99))]), 'v2.png');
    expect((await env.api.patch(`/api/user/images/${row.filename}/replace`, { key: alice.apiKey, body: form })).status).to.equal(200);
    await eventually(async () => (await env.container.db.select().from(files).where(eq(files.id, row.id)))[0]!.quarantined);
    expect((await getWithHost(url)).status).to.equal(451);
  });
});

describe('moderation: holding files until their verdict', function () {
  this.timeout(60_000);

  it('answers 451 while the verdict is pending when MODERATION_HOLD_PENDING is on', async () => {
    const port = await freePort();
    const vision = await startFakeVision(port);
    vision.state.answer = 'down';
    const env = await createTestEnv({
      workers: true,
      env: { MODERATION_ENABLED: 'true', MODERATION_HOLD_PENDING: 'true', VISION_URL: `http://127.0.0.1:${port}` },
    });
    try {
      const alice = await env.createAccount();
      const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(1000), json: true });
      expect((await getWithHost(res.body.data.url)).status).to.equal(451);
      vision.state.answer = 'allow';
      const [row] = await env.container.db.select().from(files).where(eq(files.accountId, alice.id));
      const queue = env.container.jobs.queue('moderation');
      const job = (await queue.getJobs(['delayed', 'waiting', 'active'])).find((j) => j.name === 'moderation.check' && j.data.fileId === row!.id);
      expect(job).not.to.equal(undefined);
      if ((await job!.getState()) === 'delayed') await job!.promote();
      await eventually(async () => (await getWithHost(res.body.data.url)).status === 200);

      // New content is unjudged again: held until its own verdict.
      vision.state.answer = 'down';
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(pngBytes(1200, 5))]), 'v2.png');
      const replaced = await env.api.patch(`/api/user/images/${row!.filename}/replace`, { key: alice.apiKey, body: form });
      expect(replaced.status).to.equal(200);
      expect((await getWithHost(res.body.data.url)).status).to.equal(451);
    } finally {
      await env.close();
      await vision.close();
    }
  });
});

describe('moderation: a backlog never holds a file back', function () {
  this.timeout(60_000);

  /** A service that takes its time (every check waits until the test releases it), checks one at a time. */
  async function slowService(env: Record<string, string> = {}) {
    const port = await freePort();
    const vision = await startFakeVision(port);
    vision.state.answer = 'hold';
    const test = await createTestEnv({
      workers: true,
      env: { MODERATION_ENABLED: 'true', MODERATION_CONCURRENCY: '1', VISION_URL: `http://127.0.0.1:${port}`, ...env },
    });
    const close = async () => {
      vision.state.answer = 'allow';
      vision.release();
      await test.close();
      await vision.close();
    };
    return { vision, env: test, close };
  }

  async function uploadThree(env: TestEnv) {
    const alice = await env.createAccount();
    const urls: string[] = [];
    for (let i = 0; i < 3; i++) urls.push((await upload(env, { key: alice.apiKey, bytes: pngBytes(1000 + i, 40 + i), json: true })).body.data.url as string);
    return urls;
  }

  it('serves files at once (200) while their checks wait on a slow service or in the queue behind it', async () => {
    const { vision, env, close } = await slowService();
    try {
      const urls = await uploadThree(env);
      // One check waits on the service; the other two wait in the queue behind it.
      await eventually(async () => vision.state.held.length === 1);
      expect(vision.state.received).to.have.length(1);
      for (const url of urls) expect((await getWithHost(url)).status, url).to.equal(200);

      vision.state.answer = 'hard_block';
      vision.release();
      await eventually(async () => (await Promise.all(urls.map((url) => getWithHost(url)))).every((res) => res.status === 451));
    } finally {
      await close();
    }
  });

  it('holds them (451) until each is judged when MODERATION_HOLD_PENDING is on', async () => {
    const { vision, env, close } = await slowService({ MODERATION_HOLD_PENDING: 'true' });
    try {
      const urls = await uploadThree(env);
      await eventually(async () => vision.state.held.length === 1);
      for (const url of urls) expect((await getWithHost(url)).status, url).to.equal(451);

      vision.state.answer = 'allow';
      vision.release();
      await eventually(async () => (await Promise.all(urls.map((url) => getWithHost(url)))).every((res) => res.status === 200));
    } finally {
      await close();
    }
  });
});
