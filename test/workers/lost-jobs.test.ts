import { expect } from 'chai';
import { createLogger } from '../../shared/logger.js';
import { newObjectKey } from '../../shared/storage/index.js';
import { handlers } from '../../workers/handlers/index.js';
import { startWorkers } from '../../workers/worker-pool.js';
import { eventually } from '../helpers/eventually.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';

describe('workers: a job whose keys vanish from Redis while it runs (issue 37)', () => {
  const lines: string[] = [];
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ logger: createLogger('info', 'hfs', { write: (line: string) => void lines.push(line) }) });
  });
  after(() => env.close());

  const logged = (msg: string) => lines.filter((line) => line.includes(`"msg":"${msg}"`));

  it('logs the job as lost once, and not Redis as unavailable', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    const held: typeof handlers['object.delete'] = async () => {
      started = true;
      await gate;
    };
    const pool = await startWorkers(env.container, ['objects'], { ...handlers, 'object.delete': held });
    try {
      await eventually(async () => logged('workers started').length > 0, 5000);
      const job = await env.container.jobs.add('object.delete', { key: newObjectKey() });
      await eventually(async () => started, 5000);
      // Redis emptied under the running job (only this service's keys: the run's Redis is shared).
      const { redis, config } = env.container;
      const keys = await redis.keys(`${config.redisPrefix}:*`);
      await redis.del(...keys);
      release();

      const lostThisJob = () => logged('job lost').filter((line) => line.includes(`"id":"${job.id}"`));
      await eventually(async () => lostThisJob().length > 0, 10_000).catch((err: Error) =>
        Promise.reject(new Error(`${err.message}: logged\n${lines.join('')}`)),
      );
      // Closing waits for the job's end, and with it for everything BullMQ reports about it.
      await pool.close();
      expect(lostThisJob(), lines.join('')).to.have.length(1);
      expect(lostThisJob()[0]).to.match(/"reason":"Missing key for job/);
      expect(logged('redis unavailable'), lines.join('')).to.deep.equal([]);
      expect(env.container.health.redis.isDown).to.equal(false);
    } finally {
      release();
      await pool.close();
    }
  });
});
