import { expect } from 'chai';
import { type ChildProcess, spawn } from 'node:child_process';
import { needsPostgres } from '../helpers/engines.js';
import { eventually } from '../helpers/eventually.js';
import { pngBytes } from '../helpers/media.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { upload } from '../helpers/uploads.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/** `worker webhooks` as its own process (from the sources), once its workers started. */
async function startWebhooksWorker(env: TestEnv, extra: Record<string, string>) {
  const { config } = env.container;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'workers/main.ts', 'webhooks'], {
    env: {
      ...process.env,
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: config.redisUrl,
      REDIS_PREFIX: config.redisPrefix,
      SECRET_KEY: config.secretKey,
      DATA_DIR: env.dataDir,
      BASE_URL: config.baseUrl,
      NODE_ENV: 'test',
      MODERATION_ENABLED: 'false',
      LOG_LEVEL: 'info',
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await Promise.race([
    eventually(async () => output.includes('"msg":"workers started"'), 60_000),
    exited.then(() => Promise.reject(new Error(`the worker exited:\n${output}`))),
  ]);
  return {
    output: () => output,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      return exited;
    },
  };
}

describe('webhooks: a delivery survives its worker killed with SIGKILL mid-delivery', function () {
  this.timeout(120_000);
  let receiver: WebhookReceiver;
  let env: TestEnv;
  const workers: Awaited<ReturnType<typeof startWebhooksWorker>>[] = [];
  before(async function () {
    receiver = await WebhookReceiver.start();
    // The web process only: deliveries run in the worker processes this test starts and kills.
    env = await createTestEnv({ env: { URL_FETCH_ALLOWED_ORIGINS: receiver.origin } });
    needsPostgres(this, env.databaseUrl);
  });
  after(async () => {
    await Promise.all(workers.map((w) => w.kill()));
    await env?.close();
    await receiver?.close();
  });

  it('is delivered by the next worker, under the same webhook-id, once its lock lapses', async () => {
    const workerEnv = { URL_FETCH_ALLOWED_ORIGINS: receiver.origin, WORKER_LOCK_DURATION_MS: '2000', WORKER_STALLED_INTERVAL_MS: '1000' };
    // The first request is held unanswered: its worker is killed while it waits for the answer.
    let release!: () => void;
    const held = new Promise<number>((resolve) => (release = () => resolve(200)));
    receiver.on('/crash', (_hook, nth) => (nth === 1 ? held : 204));
    try {
      const first = await startWebhooksWorker(env, workerEnv);
      workers.push(first);
      const alice = await env.createAccount();
      const created = await env.api.post('/api/user/webhooks', { key: alice.apiKey, json: { url: receiver.url('/crash'), events: ['file.uploaded'] } });
      expect(created.status, created.text).to.equal(200);
      expect((await upload(env, { key: alice.apiKey, bytes: pngBytes(1500, 1), json: true })).status).to.equal(200);

      const [inFlight] = await receiver.waitFor('/crash', 1, 20_000);
      await first.kill();
      const second = await startWebhooksWorker(env, workerEnv);
      workers.push(second);

      const hooks = await receiver.waitFor('/crash', 2, 30_000).catch((err: Error) => Promise.reject(new Error(`${err.message}\n${second.output()}`)));
      expect(hooks[1]!.headers['webhook-id']).to.equal(inFlight!.headers['webhook-id']);
      expect(hooks[1]!.body).to.equal(inFlight!.body);
      const deliveries = async () => (await env.api.get(`/api/user/webhooks/${created.body.data.id}/deliveries`, { key: alice.apiKey })).body.data;
      await eventually(async () => (await deliveries())[0]?.status === 'delivered', 10_000);
      // The killed attempt never came back to be counted; the one that answered did.
      expect((await deliveries())[0]).to.include({ id: inFlight!.headers['webhook-id'], attempts: 1, lastStatusCode: 204 });
      expect(receiver.to('/crash')).to.have.length(2);
    } finally {
      release();
    }
  });
});
