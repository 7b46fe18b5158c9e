import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import * as tus from 'tus-js-client';
import { files } from '../../shared/db/schema.js';
import { testRedisUrl } from '../helpers/engines.js';
import { pngBytes } from '../helpers/media.js';
import { phoneJpeg } from '../helpers/metadata-fixtures.js';
import { freePort } from '../helpers/ports.js';
import { runScript } from '../helpers/run-script.js';
import { s3EnvOf, startS3rver, type S3rverHandle } from '../helpers/s3rver.js';
import { reprDigestOf, sha256Of } from '../helpers/streams.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, getWithHost, upload } from '../helpers/uploads.js';

type Account = { id: string; username: string; apiKey: string };
type Stored = { url: string; filename: string; sha256: string };

/** The base64 SHA-256 of these bytes (tus `Upload-Checksum`). */
const base64Digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('base64');

describe('integrity: every stored file has the SHA-256 of the bytes it serves (issue 41)', function () {
  this.timeout(120_000);
  let env: TestEnv;
  let remote: Server;
  let origin: string;
  let alice: Account;
  let site: URL;
  const remoteBytes = pngBytes(4000, 9);

  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    remote = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png', 'content-length': remoteBytes.length }).end(remoteBytes));
    await new Promise<void>((resolve) => remote.listen(port, '127.0.0.1', resolve));
    env = await createTestEnv({ workers: true, env: { URL_FETCH_ALLOWED_ORIGINS: origin } });
    alice = await env.createAccount();
    site = new URL(env.container.config.siteUrl);
  });
  after(async () => {
    await env.close();
    remote.close();
  });

  async function recordOf(filename: string) {
    const res = await env.api.get('/api/user/dashboard?limit=100', { key: alice.apiKey });
    expect(res.status).to.equal(200);
    return (res.body.data.uploads as { filename: string; sha256: string | null }[]).find((f) => f.filename === filename);
  }

  /** The file as served in full: its digest is the one answered and recorded, and the answer's Repr-Digest. */
  async function expectDigestOfServed(stored: Stored): Promise<Buffer> {
    const served = await getWithHost(stored.url);
    expect(served.status).to.equal(200);
    expect(stored.sha256).to.equal(sha256Of(served.body));
    expect((await recordOf(stored.filename))?.sha256).to.equal(stored.sha256);
    expect(served.headers['repr-digest']).to.equal(reprDigestOf(served.body));
    return served.body;
  }

  async function uploaded(bytes: Buffer, name = 'picture.png'): Promise<Stored> {
    const res = await upload(env, { key: alice.apiKey, bytes, name, json: true });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data as Stored;
  }

  it('multipart: the answer and the record carry the SHA-256 of the served bytes; every full answer carries Repr-Digest', async () => {
    const bytes = pngBytes(20_000, 1);
    const stored = await uploaded(bytes);
    expect(stored.sha256).to.equal(sha256Of(bytes));
    expect((await expectDigestOfServed(stored)).equals(bytes)).to.equal(true);

    // The other URL styles, and the same file again from memory (the fast path).
    const [row] = await env.container.db.select().from(files).where(eq(files.filename, stored.filename));
    for (const url of [`${site.origin}/u/${alice.username}/${stored.filename}`, `${site.origin}/s/${row!.shortCode}`, stored.url]) {
      const res = await getWithHost(url);
      expect(res.status, url).to.equal(200);
      expect(res.headers['repr-digest'], url).to.equal(reprDigestOf(bytes));
    }
    expect(env.container.services.hosted.bodies.get(row!.objectKey), 'served from memory').to.not.equal(undefined);
    const head = await getWithHost(stored.url, {}, 'HEAD');
    expect(head.status).to.equal(200);
    expect(head.headers['repr-digest']).to.equal(reprDigestOf(bytes));

    // Not on answers that carry part of the representation, or none of it.
    const part = await getWithHost(stored.url, { range: 'bytes=0-99' });
    expect(part.status).to.equal(206);
    expect(part.headers['repr-digest']).to.equal(undefined);
    const notModified = await getWithHost(stored.url, { 'if-none-match': String(head.headers.etag) });
    expect(notModified.status).to.equal(304);
    expect(notModified.headers['repr-digest']).to.equal(undefined);

    // A private file's signed link, served by the app.
    const privacy = await env.api.patch(`/api/user/images/${stored.filename}/privacy`, { key: alice.apiKey, json: { isPrivate: true } });
    expect(privacy.status).to.equal(200);
    const signed = await getWithHost(privacy.body.data.url as string);
    expect(signed.status).to.equal(200);
    expect(signed.headers['repr-digest']).to.equal(reprDigestOf(bytes));
  });

  it('URL upload: the digest of the fetched bytes as stored', async () => {
    const res = await env.api.post('/api/upload/url', { key: alice.apiKey, json: { imageUrl: `${origin}/cat.png` } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const stored = res.body.data as Stored;
    expect(stored.sha256).to.equal(sha256Of(remoteBytes));
    await expectDigestOfServed(stored);
  });

  it('tus: the digest of the assembled upload, in its result and its record', async () => {
    const bytes = pngBytes(200_000, 3);
    const uploadUrl = await new Promise<string>((resolve, reject) => {
      const resumable: tus.Upload = new tus.Upload(bytes, {
        endpoint: `${env.web.url}/api/uploads`,
        chunkSize: 64 * 1024,
        retryDelays: [],
        headers: { 'x-api-key': alice.apiKey },
        metadata: { filename: 'resumable.png' },
        onSuccess: () => resolve(resumable.url!),
        onError: reject,
      });
      resumable.start();
    });
    const result = await env.api.get(`${new URL(uploadUrl).pathname}/result`, { key: alice.apiKey });
    expect(result.status).to.equal(200);
    const stored = result.body.data as Stored;
    expect(stored.sha256).to.equal(sha256Of(bytes));
    expect((await expectDigestOfServed(stored)).equals(bytes)).to.equal(true);
  });

  it('replace: the new content’s digest, in the answer, the record and Repr-Digest', async () => {
    const first = await uploaded(pngBytes(3000, 4));
    await expectDigestOfServed(first);
    const next = pngBytes(5000, 5);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(next)]), 'next.png');
    const res = await env.api.patch(`/api/user/images/${first.filename}/replace`, { key: alice.apiKey, body: form });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data.sha256).to.equal(sha256Of(next));
    expect((await expectDigestOfServed({ ...first, sha256: res.body.data.sha256 as string })).equals(next)).to.equal(true);
  });

  it('with metadata removal on, the digest is of the stored (stripped) bytes, which are the bytes served', async () => {
    const photo = await phoneJpeg('integrity-phone.jpg');
    const stored = await uploaded(photo, 'phone.jpg');
    const served = await expectDigestOfServed(stored);
    expect(served.length).to.be.below(photo.length);
    expect(stored.sha256).to.not.equal(sha256Of(photo));
  });

  it('a file stored before digests were kept has sha256 null and no Repr-Digest', async () => {
    const stored = await uploaded(pngBytes(1000, 6));
    // Before it is first served (nothing has looked it up yet).
    await env.container.db.update(files).set({ sha256: null }).where(eq(files.filename, stored.filename));
    const served = await getWithHost(stored.url);
    expect(served.status).to.equal(200);
    expect(served.headers['repr-digest']).to.equal(undefined);
    expect((await recordOf(stored.filename))?.sha256).to.equal(null);
  });
});

const stores: { name: string; start(): Promise<{ env: Record<string, string>; stop(): Promise<void> }> }[] = [
  { name: 'local', start: async () => ({ env: {}, stop: async () => undefined }) },
  {
    name: 's3 (s3rver)',
    async start() {
      const s3: S3rverHandle = await startS3rver('hfs-checksum');
      return { env: s3EnvOf(s3), stop: () => s3.stop() };
    },
  },
];

for (const store of stores) {
  describe(`tus checksum extension (sha256), ${store.name} storage`, function () {
    this.timeout(60_000);
    let started: Awaited<ReturnType<(typeof stores)[number]['start']>>;
    let env: TestEnv;
    let alice: Account;

    before(async () => {
      started = await store.start();
      env = await createTestEnv({ env: started.env });
      alice = await env.createAccount();
    });
    after(async () => {
      await env.close();
      await started.stop();
    });

    const tusHeaders = () => ({ 'Tus-Resumable': '1.0.0', 'x-api-key': alice.apiKey });
    const patch = (url: string, offset: number, body: Buffer, checksum?: string) =>
      fetch(url, {
        method: 'PATCH',
        headers: { ...tusHeaders(), 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': String(offset), ...(checksum ? { 'Upload-Checksum': checksum } : {}) },
        body: new Uint8Array(body),
      });
    const offsetOf = async (url: string) => Number((await fetch(url, { method: 'HEAD', headers: tusHeaders() })).headers.get('upload-offset'));

    async function created(length: number): Promise<string> {
      const res = await fetch(`${env.web.url}/api/uploads`, {
        method: 'POST',
        headers: { ...tusHeaders(), 'Upload-Length': String(length), 'Upload-Metadata': `filename ${Buffer.from('checked.png').toString('base64')}` },
      });
      expect(res.status).to.equal(201);
      return new URL(res.headers.get('location')!, env.web.url).href;
    }

    it('advertises the extension and its algorithm on OPTIONS', async () => {
      const res = await fetch(`${env.web.url}/api/uploads`, { method: 'OPTIONS' });
      expect(res.status).to.equal(204);
      expect(res.headers.get('tus-extension')!.split(',')).to.include('checksum');
      expect(res.headers.get('tus-checksum-algorithm')).to.equal('sha256');
    });

    it('answers 460 to a PATCH whose body does not match its Upload-Checksum and keeps none of it; the same chunk then succeeds', async () => {
      const bytes = pngBytes(150_000, 7);
      const [head, tail] = [bytes.subarray(0, 60_000), bytes.subarray(60_000)];
      const url = await created(bytes.length);
      expect((await patch(url, 0, head, `sha256 ${base64Digest(head)}`)).status).to.equal(204);
      expect(await offsetOf(url)).to.equal(head.length);

      const wrong = await patch(url, head.length, tail, `sha256 ${base64Digest(Buffer.from('something else'))}`);
      expect(wrong.status).to.equal(460);
      expect(await offsetOf(url)).to.equal(head.length);
      if (store.name === 'local') expect((await stat(path.join(env.dataDir, 'tus', path.basename(url)))).size).to.equal(head.length);

      const right = await patch(url, head.length, tail, `sha256 ${base64Digest(tail)}`);
      expect(right.status).to.equal(204);
      const hosted = right.headers.get('x-hosted-url')!;
      const served = await getWithHost(hosted);
      expect(served.body.equals(bytes)).to.equal(true);
      const result = await env.api.get(`${new URL(url).pathname}/result`, { key: alice.apiKey });
      expect(result.body.data.sha256).to.equal(sha256Of(bytes));
      expect(served.headers['repr-digest']).to.equal(reprDigestOf(bytes));
    });

    it('refuses another algorithm or a malformed digest (400) and keeps nothing', async () => {
      const chunk = pngBytes(2000, 8);
      const url = await created(chunk.length);
      for (const checksum of [`md5 ${createHash('md5').update(chunk).digest('base64')}`, 'sha256 not-base64!', `sha256 ${base64Digest(chunk).slice(4)}`]) {
        expect((await patch(url, 0, chunk, checksum)).status, checksum).to.equal(400);
      }
      expect(await offsetOf(url)).to.equal(0);
    });
  });
}

describe('admin CLI: storage verify', function () {
  this.timeout(120_000);
  let env: TestEnv;
  let alice: Account;
  let cli: Record<string, string>;

  before(async function () {
    env = await createTestEnv();
    // The CLI is a process of its own: it reaches the test's database only on PostgreSQL.
    if (!env.databaseUrl) return this.skip();
    alice = await env.createAccount();
    const { config } = env.container;
    cli = { DATABASE_URL: env.databaseUrl, SECRET_KEY: config.secretKey, DATA_DIR: env.dataDir, REDIS_URL: testRedisUrl(), REDIS_PREFIX: config.redisPrefix };
  });
  after(() => env?.close());

  const admin = async (...args: string[]) => {
    const result = await runScript('scripts/admin.ts', args, cli);
    return { ...result, json: result.code === 0 ? JSON.parse(result.stdout) : undefined };
  };
  const objectPath = (objectKey: string) => path.join(env.container.config.storage.localRoot, objectKey);

  it('re-reads every object and reports those whose bytes differ from their SHA-256, and those missing; exit 0', async () => {
    for (const seed of [1, 2, 3, 4]) expect((await upload(env, { key: alice.apiKey, bytes: pngBytes(3000, seed), json: true })).status).to.equal(200);
    const [corrupted, gone, legacy] = await fileRowsOf(env, alice.id);
    // A flipped run of bytes on disk, the size unchanged: only the digest can tell.
    const bytes = await readFile(objectPath(corrupted!.objectKey));
    randomBytes(16).copy(bytes, 1000);
    await writeFile(objectPath(corrupted!.objectKey), bytes);
    await rm(objectPath(gone!.objectKey));
    await env.container.db.update(files).set({ sha256: null }).where(eq(files.id, legacy!.id));

    const res = await admin('storage', 'verify');
    expect(res.code, res.stderr).to.equal(0);
    const problem = (row: typeof corrupted) => ({ fileId: row!.id, filename: row!.filename, account: alice.username, objectKey: row!.objectKey });
    expect(res.json).to.deep.equal({
      checked: 3,
      mismatched: [{ ...problem(corrupted), expected: corrupted!.sha256, actual: sha256Of(bytes) }],
      missing: [problem(gone)],
      skipped: 1,
    });
  });

  it('checks N files at random with --sample N, and refuses a sample that is not a positive number', async () => {
    const res = await admin('storage', 'verify', '--sample', '2');
    expect(res.code, res.stderr).to.equal(0);
    expect(res.json.checked + res.json.skipped).to.equal(2);
    for (const bad of ['0', 'many']) {
      const refused = await admin('storage', 'verify', '--sample', bad);
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.match(/--sample must be a whole number above 0\nusage: storage verify \[--sample N\]/);
    }
  });
});
