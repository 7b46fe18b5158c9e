import { expect } from 'chai';
import { readFile, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import * as tus from 'tus-js-client';
import { createRedis } from '../../shared/redis.js';
import { needsPostgres, preparedScriptEnv } from '../helpers/engines.js';
import { eventually } from '../helpers/eventually.js';
import { pngBytes } from '../helpers/media.js';
import { freePort } from '../helpers/ports.js';
import { startWeb, type StartedProcess } from '../helpers/processes.js';
import { runScript } from '../helpers/run-script.js';

/** Issue 37: resumable uploads when the web process that holds one is killed, on real Procfile processes. */
describe('resumable uploads when a web process is killed mid-PATCH (real processes)', function () {
  this.timeout(120_000);
  let env: Record<string, string>;
  let dataDir: string;
  let db: pg.Pool | undefined;
  const processes: StartedProcess[] = [];
  const redis = () => createRedis(env.REDIS_URL!);

  before(async function () {
    ({ env, dataDir } = await preparedScriptEnv('tuskill'));
    needsPostgres(this, env.DATABASE_URL || undefined);
    db = new pg.Pool({ connectionString: env.DATABASE_URL, max: 1 });
    Object.assign(env, { NODE_ENV: 'test', MODERATION_ENABLED: 'false', BASE_URL: `http://localhost:${await freePort()}` });
  });
  after(async () => {
    await Promise.all(processes.map((p) => p.kill()));
    await db?.end();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const web = async () => {
    const port = await freePort();
    const started = await startWeb({ ...env, PORT: String(port) });
    processes.push(started);
    return Object.assign(started, { url: `http://127.0.0.1:${port}`, port });
  };

  it('resumes on another web process within 5 s, and stores one file with the same bytes', async () => {
    const created = await runScript('scripts/admin.ts', ['user', 'create', '--username', 'kim', '--password', 'pw-12345678'], env);
    expect(created.code, created.stderr).to.equal(0);
    const { id: accountId, apiKey } = JSON.parse(created.stdout) as { id: string; apiKey: string };
    const [a, b] = await Promise.all([web(), web()]);
    const bytes = pngBytes(600_000, 21);
    const creation = await fetch(`${a.url}/api/uploads`, {
      method: 'POST',
      headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': String(bytes.length), 'Upload-Metadata': `filename ${Buffer.from('killed.png').toString('base64')}`, 'x-api-key': apiKey },
    });
    expect(creation.status, await creation.text()).to.equal(201);
    const uploadPath = new URL(creation.headers.get('location')!, a.url).pathname;
    const uploadId = path.basename(uploadPath);

    // Half the body on a PATCH to web a, which then hangs on for the rest.
    const socket = connect(a.port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(
      `PATCH ${uploadPath} HTTP/1.1\r\nHost: 127.0.0.1:${a.port}\r\nTus-Resumable: 1.0.0\r\nUpload-Offset: 0\r\n` +
        `Content-Type: application/offset+octet-stream\r\nContent-Length: ${bytes.length}\r\nx-api-key: ${apiKey}\r\n\r\n`,
    );
    const half = bytes.length / 2;
    socket.write(bytes.subarray(0, half));
    const client = redis();
    await client.connect();
    const partFile = path.join(dataDir, 'tus', uploadId);
    const landed = async () => (await stat(partFile).catch(() => undefined))?.size ?? 0;
    try {
      const lockKey = `${env.REDIS_PREFIX}:tus-lock:${uploadId}`;
      // Web a holds the upload's lock and has written part of the body when it is killed.
      await eventually(async () => (await client.exists(lockKey)) === 1 && (await landed()) > 0, 30_000);
      await a.kill('SIGKILL');
      socket.destroy();
      // The killed process's lock is still there: the resume below has to get past it.
      expect(await client.exists(lockKey)).to.equal(1);
    } finally {
      client.disconnect();
    }
    const offset = await landed();

    const resumedAt = Date.now();
    let resumedFrom: number | undefined;
    await new Promise<void>((resolve, reject) => {
      const upload = new tus.Upload(bytes, {
        uploadUrl: `${b.url}${uploadPath}`,
        chunkSize: bytes.length,
        retryDelays: [],
        headers: { 'x-api-key': apiKey },
        onProgress: (sent) => (resumedFrom ??= sent),
        onSuccess: () => resolve(),
        onError: reject,
      });
      upload.start();
    });
    const took = Date.now() - resumedAt;
    expect(took, `the resume took ${took} ms`).to.be.below(5000);
    // It went on from what the killed process had written: nothing was sent twice.
    expect(resumedFrom).to.be.at.least(offset);

    const { rows } = await db!.query<{ object_key: string; size: string; source: string }>('select object_key, size, source from files where account_id = $1', [accountId]);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ source: 'tus' });
    expect(Number(rows[0]!.size)).to.equal(bytes.length);
    expect((await readFile(path.join(dataDir, 'files', rows[0]!.object_key))).equals(bytes)).to.equal(true);
  });
});
