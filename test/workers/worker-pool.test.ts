import { expect } from 'chai';
import { Readable } from 'node:stream';
import { QueueEvents } from 'bullmq';
import { jobIds, JOBS, QUEUE_NAMES } from '../../shared/jobs.js';
import { newObjectKey } from '../../shared/storage/index.js';
import { handlers } from '../../workers/handlers/index.js';
import { assertHandlers, MissingHandlerError, startWorkers } from '../../workers/worker-pool.js';
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
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let started = false;
      let finished = false;
      const slow: typeof handlers['object.delete'] = async () => {
        started = true;
        await gate;
        finished = true;
      };
      const pool = await startWorkers(quiet.container, ['objects'], { ...handlers, 'object.delete': slow });
      await quiet.container.jobs.add('object.delete', { key: newObjectKey() });
      await eventually(async () => started, 5000);
      let closed = false;
      const closing = pool.close().then(() => (closed = true));
      await new Promise((resolve) => setImmediate(resolve));
      expect(closed).to.equal(false);
      release();
      await closing;
      expect(finished).to.equal(true);
    } finally {
      await quiet.close();
    }
  });

  it('runs at most MODERATION_CONCURRENCY moderation checks at a time, one job per file', async () => {
    const concurrency = 3;
    const quiet = await createTestEnv({ env: { MODERATION_CONCURRENCY: String(concurrency) } });
    try {
      const { jobs } = quiet.container;
      // Each check runs until the test lets it end.
      const running = new Map<string, () => void>();
      const started: string[] = [];
      let most = 0;
      const gated: typeof handlers['moderation.check'] = ({ fileId }) =>
        new Promise((resolve) => {
          running.set(fileId, () => resolve('skipped'));
          started.push(fileId);
          most = Math.max(most, running.size);
        });
      const end = (fileId: string) => {
        running.get(fileId)!();
        running.delete(fileId);
      };
      const files = ['a', 'b', 'c', 'd', 'e'].map((fileId) => ({ fileId, objectKey: newObjectKey() }));
      for (const file of files) await jobs.add('moderation.check', file, { jobId: jobIds.moderationCheck(file.fileId, file.objectKey) });
      // The same check queued again is the same job.
      await jobs.add('moderation.check', files[0]!, { jobId: jobIds.moderationCheck(files[0]!.fileId, files[0]!.objectKey) });
      const pool = await startWorkers(quiet.container, ['moderation'], { ...handlers, 'moderation.check': gated });
      try {
        await eventually(async () => running.size === concurrency, 5000);
        for (const fileId of [...running.keys()]) end(fileId);
        await eventually(async () => started.length === files.length, 5000);
        expect(most).to.equal(concurrency);
        expect([...started].sort()).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
      } finally {
        for (const fileId of [...running.keys()]) end(fileId);
        await pool.close();
      }
    } finally {
      await quiet.close();
    }
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
