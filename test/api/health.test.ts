import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { expect } from 'chai';
import { readdir, rename, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { createLogger } from '../../shared/logger.js';
import type { Readiness } from '../../shared/services/health/readiness.service.js';
import type { ApiResponse } from '../helpers/api-client.js';
import { startFakeVision } from '../helpers/fake-vision.js';
import { freePort } from '../helpers/ports.js';
import { s3EnvOf, startS3rver, type S3rverHandle } from '../helpers/s3rver.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { getWithHost } from '../helpers/uploads.js';

/** GET /readyz, and how long it took to answer. */
async function readyz(env: TestEnv): Promise<ApiResponse<Readiness> & { elapsed: number }> {
  const started = Date.now();
  const res = await env.api.get<Readiness>('/readyz');
  return { ...res, elapsed: Date.now() - started };
}

/** What an operator must never find in a probe's answer: addresses, connection strings, stack frames. */
function expectNothingInternal(text: string) {
  expect(text).not.to.match(/127\.0\.0\.1|localhost|:\/\/|\n\s+at |\.ts:\d+/);
}

function expectUp(res: ApiResponse<Readiness>, ...names: ('postgres' | 'redis' | 'storage' | 'moderation')[]) {
  for (const name of names) {
    const check = res.body.checks[name];
    expect(check, `${name}: ${res.text}`).to.include({ status: 'up' });
    expect(check).to.have.property('latencyMs').that.is.a('number').and.at.least(0);
    expect(check).not.to.have.property('error');
  }
}

describe('GET /healthz', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv();
  });
  after(() => env.close());

  it('answers 200 {"status":"ok"}, never cached', async () => {
    const res = await env.api.get('/healthz');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'ok' });
    expect(res.headers.get('cache-control')).to.equal('no-store');
  });

  it('answers on every host the service answers for its own routes', async () => {
    const { baseUrl, siteUrl } = env.container.config;
    const port = new URL(env.web.url).port;
    for (const host of [baseUrl, siteUrl, `http://127.0.0.1:${port}`]) {
      const res = await getWithHost(`${host}/healthz`, {}, 'GET', Number(port));
      expect(res.status, host).to.equal(200);
      expect(JSON.parse(res.body.toString())).to.deep.equal({ status: 'ok' });
    }
  });
});

describe('GET /readyz', function () {
  this.timeout(20_000);

  describe('with every dependency up and moderation disabled', () => {
    let env: TestEnv;
    before(async () => {
      env = await createTestEnv();
    });
    after(() => env.close());

    it('answers 200 "ready" with each check up and its latency, moderation "disabled", never cached', async () => {
      const res = await readyz(env);
      expect(res.status, res.text).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(res.body.status).to.equal('ready');
      expect(Object.keys(res.body.checks)).to.have.members(['postgres', 'redis', 'storage', 'moderation']);
      expectUp(res, 'postgres', 'redis', 'storage');
      expect(res.body.checks.moderation).to.deep.equal({ status: 'disabled' });
    });

    it('leaves no probe object behind in storage', async () => {
      await readyz(env);
      expect(await readdir(path.join(env.container.config.storage.localRoot, 'health'))).to.deep.equal([]);
    });

    it('answers probes that arrive together, all of them', async () => {
      const answers = await Promise.all(Array.from({ length: 10 }, () => readyz(env)));
      expect(answers.map((a) => a.status)).to.deep.equal(Array(10).fill(200));
    });
  });

  describe('when the storage directory cannot be written', () => {
    let env: TestEnv;
    let root: string;
    before(async () => {
      env = await createTestEnv();
      root = env.container.config.storage.localRoot;
    });
    after(() => env.close());

    it('answers 503 naming storage, then 200 again once it is back', async () => {
      expect((await readyz(env)).status).to.equal(200);
      // A file where the directory was: the tests may run as root, whom a read-only mode does not stop.
      await rename(root, `${root}.away`);
      await writeFile(root, '');
      const down = await readyz(env);
      expect(down.status, down.text).to.equal(503);
      expect(down.body.status).to.equal('unavailable');
      expect(down.body.checks.storage).to.include({ status: 'down', error: 'ENOTDIR' });
      expectUp(down, 'postgres', 'redis');
      expectNothingInternal(down.text);

      await rm(root);
      await rename(`${root}.away`, root);
      const back = await readyz(env);
      expect(back.status, back.text).to.equal(200);
      expectUp(back, 'storage');
    });
  });

  describe('on S3 storage whose bucket does not exist', () => {
    let s3: S3rverHandle;
    let env: TestEnv;
    before(async () => {
      s3 = await startS3rver();
      env = await createTestEnv({ env: { ...s3EnvOf(s3), S3_BUCKET: 'hfs-readiness' } });
    });
    after(async () => {
      await env?.close();
      await s3?.stop();
    });

    it('answers 503 naming storage, then 200 once the bucket is created, with no probe object left', async () => {
      const down = await readyz(env);
      expect(down.status, down.text).to.equal(503);
      expect(down.body.checks.storage).to.include({ status: 'down', error: 'NoSuchBucket' });
      expectUp(down, 'postgres', 'redis');
      expectNothingInternal(down.text);

      const client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
      await client.send(new CreateBucketCommand({ Bucket: 'hfs-readiness' }));
      client.destroy();
      const back = await readyz(env);
      expect(back.status, back.text).to.equal(200);
      expectUp(back, 'storage');
      const left = [];
      for await (const object of env.container.storage.list('health/')) left.push(object.key);
      expect(left).to.deep.equal([]);
    });
  });

  describe('with moderation enabled', () => {
    let env: TestEnv | undefined;
    afterEach(() => env?.close());

    it('reports the moderation service up when it answers its health', async () => {
      const port = await freePort();
      const vision = await startFakeVision(port);
      try {
        env = await createTestEnv({ env: { MODERATION_ENABLED: 'true', VISION_URL: `http://127.0.0.1:${port}` } });
        const res = await readyz(env);
        expect(res.status, res.text).to.equal(200);
        expectUp(res, 'postgres', 'redis', 'storage', 'moderation');
      } finally {
        await vision.close();
      }
    });

    it('reports it down but stays 200 when nothing listens at VISION_URL (uploads still work; checks queue up)', async () => {
      env = await createTestEnv({ env: { MODERATION_ENABLED: 'true', VISION_URL: `http://127.0.0.1:${await freePort()}` } });
      const res = await readyz(env);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.status).to.equal('ready');
      expect(res.body.checks.moderation).to.include({ status: 'down', error: 'ECONNREFUSED' });
      expectUp(res, 'postgres', 'redis', 'storage');
      expectNothingInternal(res.text);
    });

    it('gives up on a moderation service that never answers within the check timeout', async () => {
      const silent: Server = createServer(() => undefined);
      const port = await freePort();
      await new Promise<void>((resolve) => silent.listen(port, '127.0.0.1', resolve));
      try {
        env = await createTestEnv({ env: { MODERATION_ENABLED: 'true', VISION_URL: `http://127.0.0.1:${port}` } });
        const res = await readyz(env);
        expect(res.status, res.text).to.equal(200);
        expect(res.body.checks.moderation).to.include({ status: 'down', error: 'no answer within 1500 ms' });
        expect(res.elapsed).to.be.below(3000);
      } finally {
        silent.closeAllConnections();
        silent.close();
      }
    });
  });
});

describe('The request log and the probes', () => {
  const lines: string[] = [];
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ logger: createLogger('info', 'hfs', { write: (line: string) => void lines.push(line) }) });
  });
  after(() => env.close());

  it('has no line for /healthz or /readyz at info level, and one for other requests', async () => {
    expect((await env.api.get('/healthz')).status).to.equal(200);
    expect((await readyz(env)).status).to.equal(200);
    expect((await env.api.get('/api/ping')).status).to.equal(200);
    const requests = lines.map((line) => JSON.parse(line) as { msg: string; path?: string }).filter((line) => line.msg === 'request');
    expect(requests.map((line) => line.path)).to.deep.equal(['/api/ping']);
  });
});
