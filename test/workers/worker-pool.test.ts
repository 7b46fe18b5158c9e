import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { type Job, QueueEvents } from 'bullmq';
import { JOBS, QUEUE_NAMES } from '../../shared/jobs.js';
import { newObjectKey } from '../../shared/storage/index.js';
import { handlers } from '../../workers/handlers/index.js';
import { assertHandlers, BURST_PAUSE_MS, MissingHandlerError, startWorkers } from '../../workers/worker-pool.js';
import { createRedis } from '../../shared/redis.js';
import { eventually } from '../helpers/eventually.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';

describe('workers', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ workers: true });
  });
  after(() => env.close());

  it('has a handler for every job of every queue', () => {
    expect(() => assertHandlers(QUEUE_NAMES, handlers)).not.to.throw();
    expect(Object.keys(handlers).sort()).to.deep.equal(Object.keys(JOBS).sort());
  });

  it('lets running jobs finish when it is closed (SIGTERM drains)', async () => {
    // Its own service without workers, so only the pool under test takes the job.
    const quiet = await createTestEnv();
    try {
      let started = false;
      let finished = false;
      const slow: typeof handlers['object.delete'] = async () => {
        started = true;
        await new Promise((resolve) => setTimeout(resolve, 500));
        finished = true;
      };
      const pool = await startWorkers(quiet.container, ['objects'], { ...handlers, 'object.delete': slow });
      await quiet.container.jobs.add('object.delete', { key: newObjectKey() });
      await eventually(async () => started, 5000);
      await pool.close();
      expect(finished).to.equal(true);
    } finally {
      await quiet.close();
    }
  });

  it('runs moderation checks one at a time, each after a pause, while uploads burst in this process, and catches up after', async () => {
    const quiet = await createTestEnv();
    try {
      const { uploadLoad, jobs } = quiet.container;
      // Each check runs until the test lets it end.
      const running = new Map<string, () => void>();
      let most = 0;
      const gated: typeof handlers['moderation.check'] = ({ files: [file] }) =>
        new Promise((resolve) => {
          running.set(file!.fileId, () => resolve('skipped'));
          most = Math.max(most, running.size);
        });
      const end = (fileId: string) => {
        running.get(fileId)!();
        running.delete(fileId);
      };
      const burst = Array.from({ length: 8 }, () => uploadLoad.enter());
      expect(uploadLoad.busy).to.equal(true);
      const pool = await startWorkers(quiet.container, ['moderation'], { ...handlers, 'moderation.check': gated });
      try {
        const added = Date.now();
        for (const fileId of ['a', 'b', 'c', 'd']) await jobs.add('moderation.check', { files: [{ fileId, objectKey: newObjectKey() }] });
        // The first check waits out its pause, then starts although the burst goes on.
        await eventually(async () => running.has('a'), 5000);
        // (Half the pause: timers measure from the event loop's cached clock, which may lag.)
        expect(Date.now() - added).to.be.at.least(BURST_PAUSE_MS / 2);
        expect(uploadLoad.busy).to.equal(true);
        // Time enough for a worker at full speed to take all four.
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect([...running.keys()]).to.deep.equal(['a']);
        end('a');
        await eventually(async () => running.has('b'), 5000);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect([...running.keys()]).to.deep.equal(['b']);
        // The burst ends: from the end of the running check on, the rest run side by side.
        burst.forEach((leave) => leave());
        end('b');
        await eventually(async () => running.size === 2, 5000);
        expect(most).to.equal(2);
      } finally {
        for (const fileId of [...running.keys()]) end(fileId);
        await pool.close();
      }
    } finally {
      await quiet.close();
    }
  });

  it('pauses between the files of one check job during a burst, as before each job', async () => {
    const quiet = await createTestEnv();
    try {
      const { uploadLoad, jobs } = quiet.container;
      const burst = Array.from({ length: 8 }, () => uploadLoad.enter());
      const pool = await startWorkers(quiet.container, ['moderation'], handlers);
      try {
        // Files that are not there: each check ends at once ('gone'), so the time is the pauses'.
        const files = Array.from({ length: 3 }, () => ({ fileId: randomUUID(), objectKey: newObjectKey() }));
        const added = Date.now();
        const job = await jobs.add('moderation.check', { files });
        await eventually(async () => (await job.isCompleted()) === true, 10_000);
        // Three pauses (before the job and between its files), each measured with the tolerance above.
        expect(Date.now() - added).to.be.at.least((3 * BURST_PAUSE_MS) / 2);
        const done = await jobs.queue('moderation').getJob(job.id!);
        expect(done!.returnvalue).to.deep.equal({ outcomes: ['gone', 'gone', 'gone'] });
      } finally {
        burst.forEach((leave) => leave());
        await pool.close();
      }
    } finally {
      await quiet.close();
    }
  });

  it('stops a check job between its files when the worker shuts down, for its retry to finish', async () => {
    const shutdown = new AbortController();
    const files = Array.from({ length: 2 }, () => ({ fileId: randomUUID(), objectKey: newObjectKey() }));
    const ctx = { container: env.container, job: {} as Job, signal: shutdown.signal, pause: async () => shutdown.abort() };
    const failure = await handlers['moderation.check']({ files }, ctx).catch((err: unknown) => err);
    expect((failure as Error).name).to.equal('AbortError');
  });

  it('refuses to boot when a job has no handler', async () => {
    const { 'object.delete': _omitted, ...partial } = handlers;
    expect(() => assertHandlers(['objects'], partial)).to.throw(MissingHandlerError, /object\.delete/);
    let error: unknown;
    try {
      await startWorkers(env.container, ['objects'], partial);
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(MissingHandlerError);
  });

  it('deletes a stored object through the object.delete job', async () => {
    const { storage, jobs, config } = env.container;
    const key = newObjectKey();
    await storage.put(key, Readable.from([Buffer.from('bytes to delete')]));
    expect(await storage.head(key)).to.deep.equal({ size: 15 });

    const connection = createRedis(config.redisUrl, 'worker');
    const events = new QueueEvents('objects', { connection, prefix: config.redisPrefix });
    await events.waitUntilReady();
    try {
      const job = await jobs.add('object.delete', { key });
      await job.waitUntilFinished(events, 10_000);
    } finally {
      await events.close();
    }
    expect(await storage.head(key)).to.equal(null);
  });
});
