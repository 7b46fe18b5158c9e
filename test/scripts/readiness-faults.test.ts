import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readiness } from '../../shared/services/health/readiness.service.js';
import { migrateScriptDatabase, preparedScriptEnv } from '../helpers/engines.js';
import { eventually } from '../helpers/eventually.js';
import { startOwnPostgres, startOwnRedis, type OwnPostgres, type OwnRedis } from '../helpers/own-engines.js';
import { freePort } from '../helpers/ports.js';
import { startWeb, type StartedProcess } from '../helpers/processes.js';

/**
 * Issue 29: the probes of a real web process (the Procfile's) on engines of the test's own, which the
 * test stops and starts under it.
 */

/** A probe's status and body, and how long it took to answer. */
async function probe(base: string, route: '/healthz' | '/readyz') {
  const started = Date.now();
  const res = await fetch(`${base}${route}`, { signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Readiness, text, elapsed: Date.now() - started };
}

/** A web process on `env` with a port and BASE_URL of its own. */
async function webOn(env: Record<string, string>) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const web = await startWeb({ ...env, PORT: String(port), BASE_URL: `http://localhost:${port}`, NODE_ENV: 'test', MODERATION_ENABLED: 'false' });
  return { web, base };
}

/** The last lines a process printed, for a failing assertion's message. */
const tail = (p: StartedProcess) => p.output().split('\n').slice(-15).join('\n');

/**
 * While `engine` is stopped: /readyz is 503 at once naming it (the others up), /healthz still 200;
 * once it runs again, /readyz is 200 again.
 */
async function expectOutageSeen(base: string, web: StartedProcess, engine: { stop(): Promise<void>; start(): Promise<void> }, name: 'redis' | 'postgres') {
  const up = await probe(base, '/readyz');
  expect(up.status, up.text).to.equal(200);
  await engine.stop();
  try {
    const down = await probe(base, '/readyz');
    expect(down.status, `${down.text}\n${tail(web)}`).to.equal(503);
    expect(down.elapsed, 'ms to answer /readyz').to.be.below(2500);
    expect(down.body.status).to.equal('unavailable');
    expect(down.body.checks[name]).to.include({ status: 'down' });
    expect(down.body.checks[name]).to.have.property('error').that.is.a('string');
    for (const other of (['postgres', 'redis', 'storage'] as const).filter((n) => n !== name)) expect(down.body.checks[other], other).to.include({ status: 'up' });
    expect(down.text).not.to.match(/127\.0\.0\.1|:\/\/|\n\s+at /);
    const alive = await probe(base, '/healthz');
    expect(alive.status).to.equal(200);
    expect(alive.elapsed, 'ms to answer /healthz').to.be.below(500);
  } finally {
    await engine.start();
  }
  let last = '';
  await eventually(async () => {
    const res = await probe(base, '/readyz');
    last = res.text;
    return res.status === 200;
  }, 15_000).catch((err: Error) => Promise.reject(new Error(`${err.message}: still ${last}\n${tail(web)}`)));
}

describe('GET /healthz and /readyz of a web process whose engines stop (issue 29)', function () {
  this.timeout(60_000);
  let redis: OwnRedis;
  before(async () => {
    redis = await startOwnRedis();
  });
  after(() => redis?.stop());

  describe('Redis stopped and started again', () => {
    let web: StartedProcess;
    let base: string;
    let dataDir: string;
    before(async () => {
      const prepared = await preparedScriptEnv('readyz');
      dataDir = prepared.dataDir;
      ({ web, base } = await webOn({ ...prepared.env, REDIS_URL: redis.url }));
    });
    after(async () => {
      await web?.kill();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('answers /readyz 503 naming redis at once, /healthz 200, and /readyz 200 once Redis is back', async () => {
      await expectOutageSeen(base, web, redis, 'redis');
    });

    it('writes no info line to the request log for the probes, and one for other requests', async () => {
      await probe(base, '/healthz');
      await probe(base, '/readyz');
      await fetch(`${base}/api/ping`);
      const requestPaths = () =>
        web
          .output()
          .split('\n')
          // The last piece may be a line still being written.
          .slice(0, -1)
          .filter((line) => line.includes('"msg":"request"'))
          .map((line) => (JSON.parse(line) as { path: string }).path);
      // The process writes its log asynchronously: the ping's line shows that every earlier one is out.
      await eventually(async () => requestPaths().includes('/api/ping'), 5000);
      expect(requestPaths().filter((p) => p === '/healthz' || p === '/readyz')).to.deep.equal([]);
    });
  });

  describe('PostgreSQL stopped and started again', () => {
    let postgres: OwnPostgres | undefined;
    let web: StartedProcess;
    let base: string;
    let dataDir: string;
    before(async function () {
      postgres = await startOwnPostgres();
      // No initdb and pg_ctl under /usr/lib/postgresql/*/bin: nothing to stop.
      if (!postgres) this.skip();
      dataDir = await mkdtemp(path.join(tmpdir(), 'hfs-readyz-'));
      await migrateScriptDatabase(dataDir, postgres.url);
      ({ web, base } = await webOn({
        DATABASE_URL: postgres.url,
        REDIS_URL: redis.url,
        REDIS_PREFIX: `readyz${randomBytes(3).toString('hex')}`,
        SECRET_KEY: randomBytes(32).toString('hex'),
        DATA_DIR: dataDir,
      }));
    });
    after(async () => {
      await web?.kill();
      await postgres?.destroy();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('answers /readyz 503 naming postgres at once, /healthz 200, and /readyz 200 once PostgreSQL is back', async () => {
      await expectOutageSeen(base, web, postgres!, 'postgres');
    });
  });
});
