import { expect } from 'chai';
import { rm } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { JobQueues } from '../../shared/jobs.js';
import { createRedis } from '../../shared/redis.js';
import { SAME_REQUEST_MS } from '../../shared/shutdown.js';
import { preparedScriptEnv } from '../helpers/engines.js';
import { pngBytes } from '../helpers/media.js';
import { freePort } from '../helpers/ports.js';
import { heldUpload, startWeb, startWorker, type StartedProcess } from '../helpers/processes.js';
import { runScript } from '../helpers/run-script.js';

describe('SIGTERM: processes drain with a deadline (SHUTDOWN_TIMEOUT_MS)', function () {
  this.timeout(120_000);
  let env: Record<string, string>;
  let dataDir: string;
  let apiKey: string;
  let started: StartedProcess | undefined;

  before(async function () {
    const prepared = await preparedScriptEnv('shutdown');
    dataDir = prepared.dataDir;
    env = { ...prepared.env, MODERATION_ENABLED: 'false' };
    const created = await runScript('scripts/admin.ts', ['user', 'create', '--username', 'drainer', '--password', 'pw-123456'], env);
    expect(created.code, created.stderr).to.equal(0);
    apiKey = JSON.parse(created.stdout).apiKey;
  });
  afterEach(async () => {
    await started?.kill();
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

    it('takes a signal repeated at once as the same request (Ctrl-C reaches it from the terminal and from npm): one drain, exit 0', async () => {
      const port = await freePort();
      const web = (started = await startWeb({ ...env, PORT: String(port), SHUTDOWN_TIMEOUT_MS: '30000' }));
      const upload = await heldUpload(port, apiKey);
      web.child.kill('SIGINT');
      await web.printed('"msg":"shutting down"');
      web.child.kill('SIGINT');
      upload.finish();
      expect(await upload.response()).to.equal(200);
      expect(await web.exited, web.output()).to.equal(0);
      expect(web.output().split('"msg":"shutting down"')).to.have.length(2);
      expect(web.output()).to.not.include('second signal');
    });

    it('exits at once on a second signal sent later', async () => {
      const port = await freePort();
      const web = (started = await startWeb({ ...env, PORT: String(port), SHUTDOWN_TIMEOUT_MS: '60000' }));
      const upload = await heldUpload(port, apiKey);
      web.child.kill('SIGTERM');
      await web.printed('"msg":"shutting down"');
      // Somebody asking again, not the same request arriving twice.
      await sleep(SAME_REQUEST_MS);
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
      const worker = (started = await startWorker({ ...env, URL_FETCH_ALLOWED_ORIGINS: remoteUrl, SHUTDOWN_TIMEOUT_MS: String(timeoutMs) }, 'url-fetch'));
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
