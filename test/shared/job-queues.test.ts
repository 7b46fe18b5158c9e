import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { jobIds, JobQueues } from '../../shared/jobs.js';
import { createRedis } from '../../shared/redis.js';
import { testRedisUrl } from '../helpers/engines.js';

describe('JobQueues.add', () => {
  let redis: Redis;
  let jobs: JobQueues;
  const prefix = `t${randomBytes(5).toString('hex')}`;
  before(async () => {
    redis = createRedis(testRedisUrl());
    await redis.connect();
    jobs = new JobQueues(redis, prefix);
  });
  after(async () => {
    await Promise.all(['moderation', 'expiry', 'objects'].map((q) => jobs.queue(q as 'moderation').obliterate({ force: true })));
    await jobs.close();
    await redis.quit();
  });

  it('adds jobs queued at the same moment each with its own id, delay and options', async () => {
    const [check, again, expire, remove] = await Promise.all([
      jobs.add('moderation.check', { fileId: 'f1', objectKey: 'objects/a' }, { jobId: jobIds.moderationCheck('f1', 'objects/a') }),
      jobs.add('moderation.check', { fileId: 'f1', objectKey: 'objects/a' }, { jobId: jobIds.moderationCheck('f1', 'objects/a') }),
      jobs.add('file.expire', { fileId: 'f2' }, { delay: 60_000, jobId: jobIds.fileExpire('f2') }),
      jobs.add('object.delete', { key: 'objects/b' }),
    ]);
    expect([check.id, again.id, expire.id]).to.deep.equal(['moderate-f1-a', 'moderate-f1-a', 'expire-f2']);
    const moderation = jobs.queue('moderation');
    expect(await moderation.getJobCounts('waiting')).to.deep.equal({ waiting: 1 });
    expect((await moderation.getJob('moderate-f1-a'))!.opts).to.include({ attempts: 15 });
    expect(await jobs.queue('expiry').getJobState('expire-f2')).to.equal('delayed');
    const deletion = await jobs.queue('objects').getJob(remove.id!);
    expect(deletion!.data).to.deep.equal({ key: 'objects/b' });
    expect(await deletion!.getState()).to.equal('waiting');
  });

  it('gives a job added without an id one of its own', async () => {
    const [a, b] = await Promise.all([jobs.add('object.delete', { key: 'objects/c' }), jobs.add('object.delete', { key: 'objects/d' })]);
    expect(a.id).to.be.a('string');
    expect(b.id).to.not.equal(a.id);
    expect((await jobs.queue('objects').getJob(b.id!))!.data).to.deep.equal({ key: 'objects/d' });
  });
});
