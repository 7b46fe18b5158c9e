import { expect } from 'chai';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { ApiClient } from '../helpers/api-client.js';
import { needsPostgres, preparedScriptEnv } from '../helpers/engines.js';
import { eventually } from '../helpers/eventually.js';
import { pngBytes } from '../helpers/media.js';
import { startOwnRedis, type OwnRedis } from '../helpers/own-engines.js';
import { freePort } from '../helpers/ports.js';
import { startProcfile, startWeb, type StartedProcess } from '../helpers/processes.js';
import { runScript } from '../helpers/run-script.js';
import { makeTestMedia } from '../helpers/test-media.js';

/**
 * Issue 37: the Procfile's web, worker and vision processes started while their Redis (the test's
 * own) is stopped, then Redis started under them.
 */

/** The last lines a process printed, for a failing assertion's message. */
const tail = (p: StartedProcess) => p.output().split('\n').slice(-15).join('\n');

/** The lines that tell of a crash or carry a stack (the first few, for the assertion's message). */
const crashLines = (p: StartedProcess) =>
  p
    .output()
    .split('\n')
    .filter((line) => /uncaught exception|unhandled rejection|"stack"/.test(line))
    .join('\n')
    .slice(0, 3000);

/** How often a process printed a log message. */
const count = (p: StartedProcess, msg: string) => p.output().split(`"msg":"${msg}"`).length - 1;

describe('web and worker processes started while Redis is down (issue 37)', function () {
  this.timeout(90_000);
  let redis: OwnRedis;
  let env: Record<string, string>;
  let dataDir: string | undefined;
  let apiKey: string;
  const started: StartedProcess[] = [];

  before(async function () {
    redis = await startOwnRedis();
    await redis.stop();
    const prepared = await preparedScriptEnv('noredis');
    dataDir = prepared.dataDir;
    // A web and a worker share one database: PostgreSQL.
    needsPostgres(this, prepared.env.DATABASE_URL || undefined);
    const port = await freePort();
    env = {
      ...prepared.env,
      REDIS_URL: redis.url,
      PORT: String(port),
      BASE_URL: `http://localhost:${port}`,
      NODE_ENV: 'test',
      MODERATION_ENABLED: 'false',
    };
    // The admin CLI needs no Redis to create an account.
    const created = await runScript('scripts/admin.ts', ['user', 'create', '--username', 'early', '--password', 'pw-12345678'], env);
    expect(created.code, created.stderr).to.equal(0);
    ({ apiKey } = JSON.parse(created.stdout) as { apiKey: string });
  });
  after(async () => {
    await Promise.all(started.map((p) => p.kill()));
    await redis?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const upload = (api: ApiClient) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(pngBytes(2000))]), 'early.png');
    return api.post('/api/upload?format=json', { key: apiKey, body: form });
  };
  const objectFiles = async () => {
    try {
      return await readdir(path.join(dataDir!, 'files', 'objects'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  };

  it('both stay up, not ready (/readyz and a write 503), and once Redis answers the web uploads and the worker runs jobs', async () => {
    // The web process is up once it listens; the worker once it has said that Redis is unavailable.
    const [web, worker] = await Promise.all([
      startWeb(env),
      startProcfile('worker', '', { ...env, PORT: String(await freePort()) }, '"msg":"redis unavailable"'),
    ]);
    started.push(web, worker);
    const api = new ApiClient(`http://127.0.0.1:${env.PORT}`);

    const notReady = await api.get('/readyz');
    expect(notReady.status, `${notReady.text}\n${tail(web)}`).to.equal(503);
    expect(notReady.body).to.deep.include({ status: 'unavailable' });
    expect(notReady.body.checks.redis).to.include({ status: 'down' });
    expect(notReady.body.checks.postgres).to.include({ status: 'up' });
    const refused = await upload(api);
    expect(refused.status, refused.text).to.equal(503);
    expect(refused.headers.get('retry-after')).to.match(/^\d+$/);
    expect(refused.body).to.include({ success: false });
    await web.printed('"msg":"redis unavailable"');
    expect(worker.output()).not.to.include('"msg":"workers started"');

    await redis.start();
    await worker.printed('"msg":"workers started"');
    let last = '';
    await eventually(async () => {
      const res = await api.get('/readyz');
      last = res.text;
      return res.status === 200;
    }, 15_000).catch((err: Error) => Promise.reject(new Error(`${err.message}: /readyz still ${last}\n${tail(web)}`)));

    const uploaded = await upload(api);
    expect(uploaded.status, uploaded.text).to.equal(200);
    const { filename } = uploaded.body.data as { filename: string };
    const [objectId] = await objectFiles();
    expect(objectId, 'the uploaded object').to.be.a('string');
    // The object goes with a job only the worker runs.
    const deleted = await api.delete(`/api/user/images/${filename}`, { key: apiKey });
    expect(deleted.status, deleted.text).to.equal(200);
    await eventually(async () => !(await objectFiles()).includes(objectId!), 15_000).catch((err: Error) =>
      Promise.reject(new Error(`${err.message}: the deleted file's object is still stored\n${tail(worker)}`)),
    );

    for (const p of [web, worker]) {
      expect(p.child.exitCode, `exited\n${tail(p)}`).to.equal(null);
      // One line for the outage and one for its end, whatever the number of connections and retries.
      expect(count(p, 'redis unavailable'), p.output()).to.equal(1);
      await p.printed('"msg":"redis available again"');
      expect(count(p, 'redis available again'), p.output()).to.equal(1);
      expect(crashLines(p)).to.equal('');
    }
  });

  it('vision stays up and judges at once while Redis is down, and takes jobs once it answers', async () => {
    await redis.stop();
    const visionPort = await freePort();
    const vision = await startProcfile('vision', '', { ...env, VISION_PORT: String(visionPort) }, '"msg":"vision listening"');
    started.push(vision);
    const media = makeTestMedia();
    const post = (route: string, name: string) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(media.read(name))]), name);
      return fetch(`http://127.0.0.1:${visionPort}${route}`, { method: 'POST', body: form });
    };
    // The synchronous check needs no Redis.
    const judged = await post('/moderate-image', 'still.png');
    expect(judged.status, await judged.clone().text()).to.equal(200);
    expect(vision.output()).to.include('"msg":"redis unavailable"');

    await redis.start();
    await vision.printed('"msg":"redis available again"');
    const created = await post('/jobs/moderate-gif', 'anim.gif');
    expect(created.status).to.equal(202);
    const { job_id: id } = (await created.json()) as { job_id: string };
    await eventually(async () => (await fetch(`http://127.0.0.1:${visionPort}/jobs/${id}/result`)).status === 200, 30_000);
    expect(vision.child.exitCode, tail(vision)).to.equal(null);
    expect(count(vision, 'redis unavailable'), vision.output()).to.equal(1);
    expect(crashLines(vision)).to.equal('');
    await rm(media.dir, { recursive: true, force: true });
  });
});
