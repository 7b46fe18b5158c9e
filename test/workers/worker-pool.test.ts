import { expect } from 'chai';
import { Readable } from 'node:stream';
import { QueueEvents } from 'bullmq';
import { newObjectKey } from '../../shared/storage/index.js';
import { handlers } from '../../workers/handlers/index.js';
import { assertHandlers, MissingHandlerError, startWorkers } from '../../workers/worker-pool.js';
import { createRedis } from '../../shared/redis.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';

describe('workers', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ workers: true });
  });
  after(() => env.close());

  it('has a handler for every job', () => {
    expect(() => assertHandlers(['objects'], handlers)).not.to.throw();
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
