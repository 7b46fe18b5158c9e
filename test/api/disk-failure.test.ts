import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { pngBytes } from '../helpers/media.js';
import { freePort } from '../helpers/ports.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { needsPostgres } from '../helpers/engines.js';
import { fileRowsOf, storageUsedBy } from '../helpers/uploads.js';

/**
 * A real disk failure in the middle of an upload: the web process runs with a file-size limit
 * (`ulimit -f`), so the kernel fails its write with EFBIG once a file passes 2 MB.
 */
describe('POST /api/upload when the disk fails midway', function () {
  this.timeout(60_000);
  let env: TestEnv;
  let web: ReturnType<typeof spawn> | undefined;
  let base: string;

  before(async function () {
    env = await createTestEnv();
    // The web process under test needs the same database; PGlite cannot be shared with it.
    needsPostgres(this, env.databaseUrl);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const config = env.container.config;
    web = spawn('bash', ['-c', `ulimit -f 2048 && exec "${process.execPath}" --import tsx api/main.ts`], {
      env: {
        ...process.env,
        PORT: String(port),
        BASE_URL: base,
        DATABASE_URL: env.databaseUrl,
        REDIS_URL: config.redisUrl,
        REDIS_PREFIX: config.redisPrefix,
        SECRET_KEY: config.secretKey,
        DATA_DIR: env.dataDir,
        MODERATION_ENABLED: 'false',
        LOG_LEVEL: 'silent',
      },
      stdio: 'ignore',
    });
    const deadline = Date.now() + 30_000;
    while (!(await fetch(`${base}/api/ping`).then((r) => r.ok, () => false))) {
      if (Date.now() > deadline) throw new Error('the web process did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
  });
  after(async () => {
    web?.kill('SIGKILL');
    await env?.close();
  });

  const post = (key: string, bytes: Buffer) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), 'photo.png');
    return fetch(`${base}/api/upload?format=json`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  };

  it('answers 502 and keeps no row, no object and no charge', async () => {
    const alice = await env.createAccount();
    expect((await post(alice.apiKey, pngBytes(500_000, 1))).status).to.equal(200);
    const res = await post(alice.apiKey, pngBytes(4_000_000, 2));
    expect(res.status).to.equal(502);
    expect(((await res.json()) as { success: boolean }).success).to.equal(false);
    expect(await fileRowsOf(env, alice.id)).to.have.length(1);
    expect(await storageUsedBy(env, alice.id)).to.equal(500_000);
    const root = env.container.config.storage.localRoot;
    // Only the first upload's object: the failed one removed its partial file.
    expect(await readdir(path.join(root, 'objects'))).to.have.length(1);
  });
});
