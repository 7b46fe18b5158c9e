import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JobQueues } from '../../shared/jobs.js';
import { createRedis } from '../../shared/redis.js';
import { migrateScriptDatabase, scriptDatabaseEnv } from '../helpers/engines.js';
import { pngBytes } from '../helpers/media.js';
import { freePort } from '../helpers/ports.js';
import { ensureBuilt, launchCommand, runScript, spawnCommand } from '../helpers/run-script.js';

/**
 * A Procfile process (with `args` after its command); resolves once it printed `ready`. Its output is
 * kept: `printed(text)` waits for a line, `output()` is all of it.
 */
async function startProcfile(type: string, args: string, env: Record<string, string>, ready: string) {
  const child = spawnCommand(`${await launchCommand(`Procfile ${type}`)}${args}`, { ...env, LOG_LEVEL: 'info' });
  let output = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  const onData = (d: Buffer) => {
    output += d.toString();
    for (const waiter of waiters.filter((w) => output.includes(w.text))) waiter.resolve();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  /** Resolves when the process has printed `text` (a log message); rejects if it exits first. */
  const printed = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (output.includes(text)) return resolve();
      waiters.push({ text, resolve });
      void exited.then(() => reject(new Error(`exited before printing "${text}":\n${output}`)));
    });
  await printed(ready);
  return { child, exited, printed, output: () => output };
}

type Started = Awaited<ReturnType<typeof startProcfile>>;

const startWeb = (env: Record<string, string>) => startProcfile('web', '', env, '"msg":"web listening"');

/**
 * An upload that the server is receiving (it answered `Expect: 100-continue`) and that waits for the
 * rest of its body: `finish` sends it, `response` is what the server answered, `closed` when it hung up.
 */
async function heldUpload(port: number, apiKey: string) {
  const boundary = `b${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="held.png"\r\nContent-Type: image/png\r\n\r\n`),
    pngBytes(200),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const socket: Socket = connect(port, '127.0.0.1');
  let received = '';
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => undefined);
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  /** Resolves once what the server sent matches `pattern`; rejects if it hangs up before. */
  const answered = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(received)) return;
        socket.off('data', check);
        resolve();
      };
      socket.on('data', check);
      check();
      void closed.then(() => (pattern.test(received) ? resolve() : reject(new Error(`closed; received: ${received}`))));
    });
  const continued = answered(/^HTTP\/1\.1 100 Continue\r\n/);
  socket.write(
    `POST /api/upload HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: ${apiKey}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n` +
      `Content-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  await continued;
  const half = Math.floor(body.length / 2);
  socket.write(body.subarray(0, half));
  return {
    closed,
    // write, not end: a client that half-closes has given up on its request, as far as Node's server is concerned.
    finish: () => socket.write(body.subarray(half)),
    response: async () => {
      await answered(/\r\n\r\nHTTP\/1\.1 \d{3} /);
      return Number(/\r\n\r\nHTTP\/1\.1 (\d{3}) /.exec(received)![1]);
    },
    destroy: () => socket.destroy(),
  };
}

describe('SIGTERM: processes drain with a deadline (SHUTDOWN_TIMEOUT_MS)', function () {
  this.timeout(120_000);
  let env: Record<string, string>;
  let dataDir: string;
  let apiKey: string;
  let started: Started | undefined;

  before(async function () {
    await ensureBuilt();
    dataDir = await mkdtemp(path.join(tmpdir(), 'hfs-shutdown-'));
    const { env: scriptEnv, databaseUrl: url } = await scriptDatabaseEnv(dataDir, 'shutdown');
    env = { ...scriptEnv, MODERATION_ENABLED: 'false' };
    await migrateScriptDatabase(dataDir, url);
    const created = await runScript('scripts/admin.ts', ['user', 'create', '--username', 'drainer', '--password', 'pw-123456'], env);
    expect(created.code, created.stderr).to.equal(0);
    apiKey = JSON.parse(created.stdout).apiKey;
  });
  afterEach(() => {
    if (started?.child.exitCode === null) started.child.kill('SIGKILL');
    started = undefined;
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  describe('web', () => {
    it('stops taking connections, lets a request in flight finish, and exits 0', async () => {
      const port = await freePort();
      const web = (started = await startWeb({ ...env, PORT: String(port), SHUTDOWN_TIMEOUT_MS: '30000' }));
      const upload = await heldUpload(port, apiKey);
      web.child.kill('SIGTERM');
      await web.printed('"msg":"shutting down"');
      expect(await fetch(`http://127.0.0.1:${port}/api/ping`).then(() => 'answered', () => 'refused')).to.equal('refused');
      upload.finish();
      expect(await upload.response()).to.equal(200);
      expect(await web.exited).to.equal(0);
    });

    it('cuts off what is still in flight at the deadline and exits 1', async () => {
      const port = await freePort();
      const web = (started = await startWeb({ ...env, PORT: String(port), SHUTDOWN_TIMEOUT_MS: '1000' }));
      const upload = await heldUpload(port, apiKey);
      const signalled = Date.now();
      web.child.kill('SIGTERM');
      await upload.closed;
      const code = await web.exited;
      const elapsed = Date.now() - signalled;
      expect(code, web.output()).to.equal(1);
      expect(web.output()).to.include('shutdown deadline passed');
      // Not before the deadline, and well before the 5 s the clean-up gets after it.
      expect(elapsed).to.be.within(1000, 4000);
    });

    it('exits at once on a second signal', async () => {
      const port = await freePort();
      const web = (started = await startWeb({ ...env, PORT: String(port), SHUTDOWN_TIMEOUT_MS: '60000' }));
      const upload = await heldUpload(port, apiKey);
      web.child.kill('SIGTERM');
      await web.printed('"msg":"shutting down"');
      web.child.kill('SIGTERM');
      expect(await web.exited).to.equal(1);
      expect(web.output()).to.include('second signal');
      upload.destroy();
    });
  });

  describe('worker', () => {
    let remote: Server;
    let held: ServerResponse[];
    let requested: Promise<void>;

    // The remote side of a URL upload: it takes the request and answers only when the test says so.
    beforeEach(async () => {
      held = [];
      let arrived!: () => void;
      requested = new Promise((resolve) => (arrived = resolve));
      remote = createServer((_req, res) => {
        held.push(res);
        arrived();
      });
      await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    });
    afterEach(() => {
      remote.closeAllConnections();
      remote.close();
    });

    let redis: ReturnType<typeof createRedis>;
    let jobs: JobQueues;
    beforeEach(async () => {
      redis = createRedis(env.REDIS_URL!);
      jobs = new JobQueues(redis, env.REDIS_PREFIX!);
      await redis.connect();
    });
    afterEach(async () => {
      await jobs.close();
      redis.disconnect();
    });

    /** A url-fetch worker with one job running: its download waits for the remote side. */
    async function workerWithJobRunning(timeoutMs: number) {
      const remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
      const worker = (started = await startProcfile('worker', ' url-fetch', { ...env, URL_FETCH_ALLOWED_ORIGINS: remoteUrl, SHUTDOWN_TIMEOUT_MS: String(timeoutMs) }, '"msg":"workers started"'));
      const job = await jobs.add('url.fetch', { accountId: null, folderId: null, imageUrl: `${remoteUrl}/held.png`, expiry: null, source: 'url', answerBy: Date.now() + 60_000 });
      await requested;
      return { worker, job };
    }

    it('stops taking jobs, lets the running one finish, and exits 0', async () => {
      const { worker, job } = await workerWithJobRunning(30_000);
      worker.child.kill('SIGTERM');
      await worker.printed('"msg":"shutting down"');
      held[0]!.writeHead(200, { 'content-type': 'image/png' }).end(pngBytes(200));
      expect(await worker.exited, worker.output()).to.equal(0);
      expect(await job.getState()).to.equal('completed');
    });

    it('cuts off the running job at the deadline and exits 1', async () => {
      const { worker } = await workerWithJobRunning(1000);
      const signalled = Date.now();
      worker.child.kill('SIGTERM');
      const code = await worker.exited;
      expect(code, worker.output()).to.equal(1);
      expect(worker.output()).to.include('shutdown deadline passed');
      expect(Date.now() - signalled).to.be.within(1000, 4000);
    });
  });
});
