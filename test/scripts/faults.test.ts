import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { emptyPostgresDatabase, migrateScriptDatabase, needsPostgres } from '../helpers/engines.js';
import { eventually } from '../helpers/eventually.js';
import { pngBytes } from '../helpers/media.js';
import { startOwnPostgres, startOwnRedis, type OwnPostgres, type OwnRedis } from '../helpers/own-engines.js';
import { freePort } from '../helpers/ports.js';
import { heldUpload, startWeb, startWorker, type StartedProcess } from '../helpers/processes.js';
import { runScript } from '../helpers/run-script.js';
import { getWithHost } from '../helpers/uploads.js';

/**
 * Issue 23: the real Procfile processes (web, worker) on engines of the test's own, which it stops,
 * empties and restarts under them, and processes it kills with SIGKILL.
 */

type Account = { id: string; username: string; apiKey: string };

/** One service: its processes share a database, the own Redis (with a prefix of their own), a data dir and a secret. */
class Service {
  readonly processes: StartedProcess[] = [];
  private constructor(
    readonly env: Record<string, string>,
    readonly dataDir: string,
  ) {}

  static async create(databaseUrl: string, redis: OwnRedis, extra: Record<string, string> = {}) {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'hfs-faults-'));
    const env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      REDIS_PREFIX: `faults${randomBytes(3).toString('hex')}`,
      SECRET_KEY: randomBytes(32).toString('hex'),
      DATA_DIR: dataDir,
      NODE_ENV: 'test',
      MODERATION_ENABLED: 'false',
      LOG_LEVEL: 'info',
      ...extra,
    };
    return new Service(env, dataDir);
  }

  /** A web process on a port of its own (every web of a service shares SITE_URL and BASE_URL). */
  async web() {
    const port = await freePort();
    const started = this.track(await startWeb({ ...this.env, PORT: String(port) }));
    return Object.assign(started, { port, api: new ApiClient(`http://127.0.0.1:${port}`) });
  }

  async worker(...queues: string[]) {
    return this.track(await startWorker({ ...this.env, PORT: String(await freePort()) }, ...queues));
  }

  async createAccount(username: string): Promise<Account> {
    const created = await runScript('scripts/admin.ts', ['user', 'create', '--username', username, '--password', 'pw-12345678'], this.env);
    expect(created.code, created.stderr).to.equal(0);
    return JSON.parse(created.stdout) as Account;
  }

  /** Every object file under DATA_DIR/files/objects, as its key. */
  async objectKeys(): Promise<string[]> {
    try {
      return (await readdir(path.join(this.dataDir, 'files', 'objects'))).map((name) => `objects/${name}`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  /** Kills every process it started (SIGKILL) and removes its data dir. */
  async destroy() {
    await Promise.all(this.processes.map((p) => p.kill()));
    await rm(this.dataDir, { recursive: true, force: true });
  }

  private track<T extends StartedProcess>(started: T): T {
    this.processes.push(started);
    return started;
  }
}

type Web = Awaited<ReturnType<Service['web']>>;

/** The last lines a process printed, for a failing assertion's message. */
const tail = (p: StartedProcess) => p.output().split('\n').slice(-15).join('\n');

/** A process's state letter from /proc (`T` once a SIGSTOP has taken hold). */
const processState = async (pid: number) => (await readFile(`/proc/${pid}/stat`, 'utf8')).replace(/^.*\) /s, '')[0];

/** POST /api/upload (JSON answer) of a small PNG, with the form `fields` given. */
function uploadVia(web: Web, apiKey: string, fields: Record<string, string> = {}): Promise<ApiResponse> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([new Uint8Array(pngBytes(2000, randomBytes(1).readUInt8()))]), 'picture.png');
  return web.api.post('/api/upload?format=json', { key: apiKey, body: form });
}

/** A request's status, headers and body, and how long it took to answer. */
async function timed(request: () => Promise<Response>) {
  const started = Date.now();
  const res = await request();
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, elapsed: Date.now() - started };
}

/** The spec's error body with 503 and a Retry-After in whole seconds; else says what `process` printed last. */
function expectUnavailable(res: { status: number; headers: Headers; text: string }, what: string, process: StartedProcess) {
  expect(res.status, `${what} answered ${res.text}\n--- the web process's last lines:\n${tail(process)}\n---`).to.equal(503);
  expect(res.headers.get('retry-after'), `${what}: Retry-After`).to.match(/^\d+$/);
  const body = JSON.parse(res.text) as { success: unknown; error: unknown };
  expect(body.success).to.equal(false);
  expect(body.error).to.be.a('string').and.not.equal('');
}

describe('Reliability under faults: real processes, engines that stop (issue 23)', function () {
  this.timeout(60_000);
  let redis: OwnRedis;
  before(async () => {
    redis = await startOwnRedis();
  });
  after(() => redis?.stop());

  describe('on one PostgreSQL database shared by the processes', () => {
    let service: Service;
    let db: pg.Pool;
    let webA: Web;
    let alice: Account;
    let remote: Server;
    const held: ServerResponse[] = [];
    const seen = new Set<string>();
    let remoteOrigin: string;

    before(async function () {
      const databaseUrl = await emptyPostgresDatabase();
      needsPostgres(this, databaseUrl);
      // The remote side of URL uploads: a PNG's first bytes, then nothing until the test lets go.
      remote = createServer((req, res) => {
        res.writeHead(200, { 'content-type': 'image/png' });
        // `/again-*.png` is held the first time only: a second fetch of it (after a crash) gets it all.
        if (req.url!.startsWith('/again-') && seen.has(req.url!)) return res.end(pngBytes(40_000));
        seen.add(req.url!);
        held.push(res);
        res.write(pngBytes(40_000).subarray(0, 16_384));
      });
      await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
      remoteOrigin = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
      const sitePort = await freePort();
      service = await Service.create(databaseUrl!, redis, {
        BASE_URL: `http://localhost:${sitePort}`,
        SITE_URL: `http://localhost:${sitePort}`,
        URL_FETCH_ALLOWED_ORIGINS: remoteOrigin,
      });
      await migrateScriptDatabase(service.dataDir, databaseUrl);
      db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
      alice = await service.createAccount('alice');
      webA = await service.web();
    });
    after(async () => {
      await service?.destroy();
      await db?.end();
      for (const res of held) res.destroy();
      remote?.closeAllConnections();
      remote?.close();
    });

    const fileRow = async (filename: string) =>
      (await db.query<{ filename: string; object_key: string }>('select filename, object_key from files where account_id = $1 and filename = $2', [alice.id, filename])).rows[0];

    describe('two web processes and no worker: a change on one is seen by the very next request on the other', () => {
      let webB: Web;
      before(async () => {
        webB = await service.web();
      });
      after(() => webB?.kill());

      /** GET of a hosted URL sent to web B (with the URL's own Host). */
      const onB = async (url: string) => (await getWithHost(url, {}, 'GET', webB.port)).status;

      async function uploadWarmOnB(): Promise<{ filename: string; url: string }> {
        const res = await uploadVia(webA, alice.apiKey);
        expect(res.status, res.text).to.equal(200);
        const { filename, url } = res.body.data as { filename: string; url: string };
        // Twice: the second one is answered from what B keeps, if it keeps anything.
        expect(await onB(url)).to.equal(200);
        expect(await onB(url)).to.equal(200);
        return { filename, url };
      }

      it('rename on A: the old URL is 404 and the new one 200 on B, round after round', async () => {
        let { filename, url } = await uploadWarmOnB();
        for (let round = 1; round <= 10; round++) {
          const res = await webA.api.put(`/api/user/images/${filename}/rename`, { key: alice.apiKey, json: { newFilename: `renamed-${round}.png` } });
          expect(res.status, res.text).to.equal(200);
          expect(await onB(url), `round ${round}: old URL on B`).to.equal(404);
          expect(await onB(res.body.newUrl), `round ${round}: new URL on B`).to.equal(200);
          ({ newFilename: filename, newUrl: url } = res.body as { newFilename: string; newUrl: string });
        }
      });

      it('set private on A: the very next unsigned GET on B is refused (404), round after round', async () => {
        const { filename, url } = await uploadWarmOnB();
        for (let round = 1; round <= 10; round++) {
          const hidden = await webA.api.patch(`/api/user/images/${filename}/privacy`, { key: alice.apiKey, json: { isPrivate: true } });
          expect(hidden.status, hidden.text).to.equal(200);
          expect(await onB(url), `round ${round}: unsigned GET on B after set private`).to.equal(404);
          const shown = await webA.api.patch(`/api/user/images/${filename}/privacy`, { key: alice.apiKey, json: { isPrivate: false } });
          expect(shown.status, shown.text).to.equal(200);
          // Public again (B keeps it again for the next round).
          await eventually(async () => (await onB(url)) === 200, 5000);
        }
      });

      it('delete on A: the very next GET on B is 404, file after file', async () => {
        const uploaded = [];
        for (let i = 0; i < 10; i++) uploaded.push(await uploadWarmOnB());
        for (const [i, { filename, url }] of uploaded.entries()) {
          const res = await webA.api.delete(`/api/user/images/${filename}`, { key: alice.apiKey });
          expect(res.status, res.text).to.equal(200);
          expect(await onB(url), `file ${i + 1}: GET on B after delete`).to.equal(404);
        }
      });

      it('B paused (SIGSTOP) past the acknowledgement window while A changes a file: its first GET after SIGCONT is not the old state', async () => {
        // A stand-in for a long GC pause or a starved CPU; A answers without B's acknowledgement.
        const changes = [
          (filename: string) => webA.api.patch(`/api/user/images/${filename}/privacy`, { key: alice.apiKey, json: { isPrivate: true } }),
          (filename: string) => webA.api.delete(`/api/user/images/${filename}`, { key: alice.apiKey }),
          (filename: string) => webA.api.put(`/api/user/images/${filename}/rename`, { key: alice.apiKey, json: { newFilename: `moved-${randomBytes(4).toString('hex')}.png` } }),
        ];
        for (let round = 1; round <= 30; round++) {
          const { filename, url } = await uploadWarmOnB();
          webB.child.kill('SIGSTOP');
          await eventually(async () => (await processState(webB.child.pid!)) === 'T', 5000);
          const res = await changes[round % changes.length]!(filename);
          expect(res.status, res.text).to.equal(200);
          webB.child.kill('SIGCONT');
          expect(await onB(url), `round ${round}: B's first GET after it resumed`).to.equal(404);
        }
      });
    });

    describe('Redis stopped under a running web process', () => {
      // Whatever happened, the next tests get their Redis back.
      afterEach(() => redis.start());

      it('answers a rename 503 within 1 s with Retry-After, changes nothing, and renames once Redis is back', async () => {
        const uploaded = await uploadVia(webA, alice.apiKey);
        expect(uploaded.status, uploaded.text).to.equal(200);
        const { filename } = uploaded.body.data as { filename: string };
        await redis.stop();

        const rename = (newFilename: string) =>
          fetch(`${webA.api.baseUrl}/api/user/images/${filename}/rename`, {
            method: 'PUT',
            headers: { 'x-api-key': alice.apiKey, 'content-type': 'application/json' },
            body: JSON.stringify({ newFilename }),
            signal: AbortSignal.timeout(10_000),
          });
        const res = await timed(() => rename('while-down.png'));
        expectUnavailable(res, 'rename while Redis is down', webA);
        expect(res.elapsed, 'ms to answer').to.be.below(1000);
        expect(await fileRow(filename), 'the file under its old name').to.not.equal(undefined);
        expect(await fileRow('while-down.png'), 'a file under the new name').to.equal(undefined);

        await redis.start();
        let last = 0;
        await eventually(async () => {
          last = (await rename('after-redis.png')).status;
          return last !== 503;
        }, 15_000).catch((err: Error) => Promise.reject(new Error(`${err.message}: still ${last}\n${tail(webA)}`)));
        expect(last).to.equal(200);
        expect(await fileRow('after-redis.png')).to.not.equal(undefined);
        expect(await fileRow(filename)).to.equal(undefined);
        // The refused rename stays refused: nothing replays it later.
        expect(await fileRow('while-down.png')).to.equal(undefined);
      });

      it('logs the outage once and its end once, with no stack traces, and keeps /metrics answering at once', async () => {
        const from = webA.output().length;
        await redis.stop();
        for (let i = 0; i < 5; i++) {
          const res = await timed(() => fetch(`${webA.api.baseUrl}/api/user/images/nothing.png`, { method: 'DELETE', headers: { 'x-api-key': alice.apiKey } }));
          expectUnavailable(res, 'delete while Redis is down', webA);
        }
        // The first failed reconnect marks Redis down; the attempts after it print nothing of their own.
        // (Earlier tests printed these lines too: only what came after `from` counts.)
        const printedSince = (text: string) => eventually(async () => webA.output().slice(from).includes(text), 10_000);
        await printedSince('"msg":"redis unavailable"');
        const metrics = await timed(() => fetch(`${webA.api.baseUrl}/metrics`, { signal: AbortSignal.timeout(10_000) }));
        expect(metrics.status).to.equal(200);
        expect(metrics.elapsed, 'ms to answer /metrics').to.be.below(1500);
        expect(metrics.text).to.include('hfs_dependency_up{dependency="redis"} 0');
        await redis.start();
        await printedSince('"msg":"redis available again"');
        await eventually(async () => (await webA.api.delete('/api/user/images/nothing.png', { key: alice.apiKey })).status === 404, 15_000);

        const logged = webA.output().slice(from);
        const count = (text: string) => logged.split(text).length - 1;
        expect(count('"msg":"redis unavailable"'), logged).to.equal(1);
        expect(count('"msg":"redis available again"'), logged).to.equal(1);
        expect(logged).to.not.include('Unhandled error event');
        expect(logged).to.not.include('"stack"');
        expect(logged).to.not.match(/^\s+at /m, logged);
      });

      it('answers an upload 503 with Retry-After and keeps neither a row nor an object file', async () => {
        const objectsBefore = await service.objectKeys();
        const { rows } = await db.query<{ n: number }>('select count(*)::int as n from files where account_id = $1', [alice.id]);
        await redis.stop();

        const form = new FormData();
        form.append('file', new Blob([new Uint8Array(pngBytes(30_000))]), 'down.png');
        const res = await timed(() =>
          fetch(`${webA.api.baseUrl}/api/upload?format=json`, { method: 'POST', headers: { 'x-api-key': alice.apiKey }, body: form, signal: AbortSignal.timeout(10_000) }),
        );
        expectUnavailable(res, 'upload while Redis is down', webA);
        const after = await db.query<{ n: number }>('select count(*)::int as n from files where account_id = $1', [alice.id]);
        expect(after.rows[0]!.n, 'file rows').to.equal(rows[0]!.n);
        expect(await service.objectKeys(), 'object files').to.have.members(objectsBefore);
      });
    });

    describe('Redis restarted empty under a running worker and web process', () => {
      let worker: StartedProcess;
      before(async () => {
        worker = await service.worker();
      });
      after(() => worker?.kill());

      it('still deletes an expired file (row and object) whose expiry job was lost, with no process restarted', async function () {
        // The expiry sweep runs every minute: its schedule must come back by itself, then it runs.
        this.timeout(100_000);
        const res = await uploadVia(webA, alice.apiKey, { expiry: '1h' });
        expect(res.status, res.text).to.equal(200);
        const { filename } = res.body.data as { filename: string };
        const row = await fileRow(filename);
        expect(row).to.not.equal(undefined);

        // Its own job (due in an hour) goes with everything Redis held.
        await redis.stop();
        await redis.start();
        await db.query(`update files set expires_at = now() - interval '1 minute' where account_id = $1 and filename = $2`, [alice.id, filename]);

        await eventually(async () => (await fileRow(filename)) === undefined, 75_000).catch((err: Error) =>
          Promise.reject(new Error(`${err.message}: the expired file's row is still there\n${tail(worker)}`)),
        );
        await eventually(async () => !(await service.objectKeys()).includes(row!.object_key), 15_000).catch((err: Error) =>
          Promise.reject(new Error(`${err.message}: the expired file's object is still there\n${tail(worker)}`)),
        );
      });
    });

    describe('kill -9 mid-upload, then storage reconcile: no object without a row', () => {
      /** Waits for an object file that was not there in `before`; returns its key. */
      async function newObject(before: string[]): Promise<string> {
        let found: string | undefined;
        await eventually(async () => {
          found = (await service.objectKeys()).find((key) => !before.includes(key));
          return found !== undefined;
        });
        return found!;
      }

      /** Runs the reconcile and checks that every object file has its row and every row its object file. */
      async function reconcileLeavesNoOrphan(orphan: string) {
        const result = await runScript('scripts/admin.ts', ['storage', 'reconcile', '--min-age', '0'], service.env);
        expect(result.code, `admin storage reconcile: ${result.stderr}`).to.equal(0);
        const report = JSON.parse(result.stdout) as { scanned: number; removed: number };
        expect(report.scanned).to.be.a('number');
        expect(report.removed).to.be.a('number').and.at.least(1);

        const keys = new Set((await db.query<{ object_key: string }>('select object_key from files')).rows.map((r) => r.object_key));
        const objects = await service.objectKeys();
        expect(objects, 'the orphan of the killed upload').to.not.include(orphan);
        expect(objects.filter((key) => !keys.has(key)), 'object files without a row').to.deep.equal([]);
        expect([...keys].filter((key) => !objects.includes(key)), 'rows whose object file was removed').to.deep.equal([]);
      }

      it('a worker killed during a URL upload', async () => {
        const worker = await service.worker('url-fetch');
        const before = await service.objectKeys();
        // Nobody waits for its answer: the web process would wait for the dead worker's job for minutes.
        const request = new AbortController();
        void fetch(`${webA.api.baseUrl}/api/upload/url`, {
          method: 'POST',
          headers: { 'x-api-key': alice.apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ imageUrl: `${remoteOrigin}/slow.png` }),
          signal: request.signal,
        }).catch(() => undefined);
        const orphan = await newObject(before);
        await worker.kill('SIGKILL');
        request.abort();
        expect((await db.query('select 1 from files where object_key = $1', [orphan])).rowCount, 'a row for the half-fetched object').to.equal(0);
        await reconcileLeavesNoOrphan(orphan);
      });

      it('a URL upload whose worker is killed is fetched again by another worker, and its client gets the file in seconds', async () => {
        const first = await service.worker('url-fetch');
        const before = await service.objectKeys();
        const started = Date.now();
        const answer = fetch(`${webA.api.baseUrl}/api/upload/url`, {
          method: 'POST',
          headers: { 'x-api-key': alice.apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ imageUrl: `${remoteOrigin}/again-${randomBytes(4).toString('hex')}.png` }),
          signal: AbortSignal.timeout(50_000),
        });
        await newObject(before);
        const second = await service.worker('url-fetch');
        try {
          await first.kill('SIGKILL');
          const res = await answer;
          const body = (await res.json()) as { success: boolean; data?: { filename: string } };
          expect(res.status, JSON.stringify(body)).to.equal(200);
          expect(Date.now() - started, 'ms until the client had its answer').to.be.below(30_000);
          expect(await fileRow(body.data!.filename)).to.not.equal(undefined);
        } finally {
          await second.kill();
        }
      });

      it('a web process killed during a multipart upload', async () => {
        const webC = await service.web();
        const before = await service.objectKeys();
        const upload = await heldUpload(webC.port, alice.apiKey, 40_000);
        const orphan = await newObject(before);
        await webC.kill('SIGKILL');
        upload.destroy();
        expect((await db.query('select 1 from files where object_key = $1', [orphan])).rowCount, 'a row for the half-received object').to.equal(0);
        await reconcileLeavesNoOrphan(orphan);
      });
    });
  });

  describe('PostgreSQL stopped under a running web process (on a cluster of its own: needs the PostgreSQL server binaries)', () => {
    let postgres: OwnPostgres | undefined;
    let service: Service;
    let web: Web;
    let bob: Account;

    before(async function () {
      postgres = await startOwnPostgres();
      // No initdb and pg_ctl under /usr/lib/postgresql/*/bin: nothing to stop.
      if (!postgres) this.skip();
      service = await Service.create(postgres.url, redis);
      await migrateScriptDatabase(service.dataDir, postgres.url);
      bob = await service.createAccount('bob');
      web = await service.web();
    });
    after(async () => {
      await service?.destroy();
      await postgres?.destroy();
    });

    it('answers the dashboard 503 with Retry-After within a few seconds, and 200 again once it is back', async () => {
      const dashboard = () => fetch(`${web.api.baseUrl}/api/user/dashboard`, { headers: { 'x-api-key': bob.apiKey }, signal: AbortSignal.timeout(15_000) });
      expect((await dashboard()).status).to.equal(200);

      const from = web.output().length;
      await postgres!.stop();
      const res = await timed(dashboard);
      expectUnavailable(res, 'dashboard while PostgreSQL is down', web);
      expect(res.elapsed, 'ms to answer').to.be.below(5000);
      for (let i = 0; i < 3; i++) expect((await dashboard()).status).to.equal(503);
      // One line for the outage: no SQL, no stack trace, whatever the number of failed requests.
      const logged = web.output().slice(from);
      expect(logged.split('"msg":"postgres unavailable"').length - 1, logged).to.equal(1);
      expect(logged).to.not.include('Failed query');
      expect(logged).to.not.include('"stack"');

      await postgres!.start();
      let last = 0;
      await eventually(async () => {
        last = (await dashboard()).status;
        return last === 200;
      }, 15_000).catch((err: Error) => Promise.reject(new Error(`${err.message}: still ${last}\n${tail(web)}`)));
      expect(web.child.exitCode, `the web process exited\n${tail(web)}`).to.equal(null);
    });
  });
});
