import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { readdir, utimes } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import * as tus from 'tus-js-client';
import { accounts } from '../../shared/db/schema.js';
import { elfBytes, pngBytes } from '../helpers/media.js';
import { eventually } from '../helpers/eventually.js';
import { s3EnvOf, startS3rver, type S3rverHandle } from '../helpers/s3rver.js';
import { createTestEnv, startSecondWebProcess, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, storageUsedBy, storedObjects } from '../helpers/uploads.js';

const CHUNK = 64 * 1024;
const HOUR = 60 * 60_000;

/** What FLUSHALL does to one service (the test Redis is shared, so only this service's keys go). */
async function emptyRedis(env: TestEnv) {
  const keys = await env.container.redis.keys(`${env.container.config.redisPrefix}:*`);
  if (keys.length > 0) await env.container.redis.del(...keys);
}

/** Dates a file's last modification `ms` ago. */
async function backdate(file: string, ms: number) {
  const at = new Date(Date.now() - ms);
  await utimes(file, at, at);
}

interface Started {
  upload: tus.Upload;
  done: Promise<void>;
}

/** A tus-js-client upload (Node, a Buffer), started; `stopAfter`: abort once that many bytes are in. */
function startUpload(endpoint: string, bytes: Buffer, options: { key: string; uploadUrl?: string; stopAfter?: number; chunkSize?: number; metadata?: Record<string, string> }): Started {
  let upload!: tus.Upload;
  const done = new Promise<void>((resolve, reject) => {
    upload = new tus.Upload(bytes, {
      endpoint,
      ...(options.uploadUrl ? { uploadUrl: options.uploadUrl } : {}),
      chunkSize: options.chunkSize ?? CHUNK,
      retryDelays: [],
      headers: { 'x-api-key': options.key },
      metadata: { filename: 'resumable.png', ...options.metadata },
      onProgress: (sent) => {
        if (options.stopAfter !== undefined && sent >= options.stopAfter) {
          void upload.abort().then(resolve);
        }
      },
      onSuccess: () => resolve(),
      onError: reject,
    });
  });
  upload.start();
  return { upload, done };
}

describe('resumable uploads (tus) with tus-js-client', function () {
  this.timeout(60_000);
  let env: TestEnv;
  let endpoint: string;
  before(async () => {
    env = await createTestEnv({ env: { PLAN_FREE_MAX_FILE_SIZE: '2000000' } });
    endpoint = `${env.web.url}/api/uploads`;
  });
  after(() => env.close());

  const resultOf = async (url: string, key: string) => (await env.api.get(`${new URL(url).pathname}/result`, { key })).body;
  const head = (url: string, key: string) => fetch(url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0', 'x-api-key': key } });
  /** Whether the tus store still holds the upload's bytes. */
  const kept = async (url: string) => (await readdir(path.join(env.dataDir, 'tus')).catch(() => [] as string[])).includes(path.basename(new URL(url).pathname));

  it('uploads through the same pipeline: one file of source "tus", its bytes, its expiry; the result and the hosted URL are given', async () => {
    const user = await env.createAccount();
    const bytes = pngBytes(300_000, 1);
    const started = startUpload(endpoint, bytes, { key: user.apiKey, metadata: { expiry: '1d' } });
    await started.done;
    const url = started.upload.url!;
    const final = await head(url, user.apiKey);
    expect(final.status).to.equal(200);
    expect(final.headers.get('upload-offset')).to.equal(String(bytes.length));
    const result = await resultOf(url, user.apiKey);
    expect(result.success).to.equal(true);
    expect(final.headers.get('x-hosted-url')).to.equal(result.data.url);
    expect(result.data).to.include({ originalFilename: 'resumable.png', mimeType: 'image/png', sizeBytes: bytes.length, expiry: '1d' });
    const rows = await fileRowsOf(env, user.id);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ source: 'tus', size: bytes.length });
    const stored = await env.container.storage.get(rows[0]!.objectKey);
    expect(Buffer.concat(await stored!.body.toArray()).equals(bytes)).to.equal(true);
    expect(await storageUsedBy(env, user.id)).to.equal(bytes.length);
    expect(await kept(url)).to.equal(false);
  });

  it('resumes an aborted upload from the offset the server has, on another web process', async () => {
    const user = await env.createAccount();
    const bytes = pngBytes(400_000, 2);
    const first = startUpload(endpoint, bytes, { key: user.apiKey, stopAfter: 2 * CHUNK });
    await first.done;
    const url = first.upload.url!;
    const offset = Number((await head(url, user.apiKey)).headers.get('upload-offset'));
    // The first chunk was acknowledged before the second went out; the aborted second may or may not have landed.
    expect(offset).to.be.at.least(CHUNK).and.below(bytes.length);

    const second = await startSecondWebProcess(env);
    try {
      const elsewhere = `${second.web.url}${new URL(url).pathname}`;
      const resumed = startUpload(`${second.web.url}/api/uploads`, bytes, { key: user.apiKey, uploadUrl: elsewhere });
      let firstReported: number | undefined;
      resumed.upload.options.onProgress = (sent) => (firstReported ??= sent);
      await resumed.done;
      // Its first progress is where the server was: nothing is sent twice.
      expect(firstReported).to.be.at.least(offset);
    } finally {
      await second.close();
    }
    const rows = await fileRowsOf(env, user.id);
    expect(rows).to.have.length(1);
    const stored = await env.container.storage.get(rows[0]!.objectKey);
    expect(Buffer.concat(await stored!.body.toArray()).equals(bytes)).to.equal(true);
  });

  describe('discovery and CORS for clients on other origins', () => {
    const elsewhere = 'https://uploader.example';

    it('answers OPTIONS with the tus version, extensions and the largest size any plan allows', async () => {
      const { plans } = env.container;
      const largest = Math.max(plans.anonymousMaxFileSize, plans.of('free').maxFileSize, plans.of('pro').maxFileSize);
      for (const url of [endpoint, `${endpoint}/0c6f7f0e-5f0e-4f57-9d1a-2d3f4c5b6a7e`]) {
        const res = await fetch(url, { method: 'OPTIONS' });
        expect(res.status, await res.text()).to.equal(204);
        expect(res.headers.get('tus-version')).to.equal('1.0.0');
        expect(res.headers.get('tus-extension')!.split(',')).to.include.members(['creation', 'termination', 'expiration']);
        expect(res.headers.get('tus-max-size')).to.equal(String(largest));
      }
    });

    it('answers a preflight from another origin: any origin, the tus and key headers, never credentials', async () => {
      const res = await fetch(`${endpoint}/0c6f7f0e-5f0e-4f57-9d1a-2d3f4c5b6a7e`, {
        method: 'OPTIONS',
        headers: { Origin: elsewhere, 'Access-Control-Request-Method': 'PATCH', 'Access-Control-Request-Headers': 'content-type,tus-resumable,upload-offset,x-api-key' },
      });
      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-origin')).to.equal('*');
      const allowed = (name: string) => res.headers.get(name)!.toLowerCase().split(/,\s*/);
      expect(allowed('access-control-allow-methods')).to.include.members(['post', 'head', 'patch', 'delete']);
      expect(allowed('access-control-allow-headers')).to.include.members(['content-type', 'tus-resumable', 'upload-offset', 'upload-length', 'upload-metadata', 'x-api-key', 'authorization']);
      // Cookies never cross: the anonymous website upload works from the site's own origin only.
      expect(res.headers.get('access-control-allow-credentials')).to.equal(null);
    });

    it('lets a page on another origin read Location, Upload-Offset, X-Hosted-Url and the result', async () => {
      const user = await env.createAccount();
      const headers = { Origin: elsewhere, 'Tus-Resumable': '1.0.0', 'x-api-key': user.apiKey };
      const bytes = pngBytes(2000, 11);
      const created = await fetch(endpoint, { method: 'POST', headers: { ...headers, 'Upload-Length': String(bytes.length) } });
      expect(created.status).to.equal(201);
      const exposed = (res: Response) => res.headers.get('access-control-expose-headers')!.toLowerCase().split(/\s*,\s*/);
      expect(created.headers.get('access-control-allow-origin')).to.equal('*');
      expect(exposed(created)).to.include.members(['location', 'upload-offset', 'x-hosted-url']);
      const location = new URL(created.headers.get('location')!, endpoint).href;
      const patched = await fetch(location, { method: 'PATCH', headers: { ...headers, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' }, body: new Uint8Array(bytes) });
      expect(patched.status).to.equal(204);
      expect(patched.headers.get('access-control-allow-origin')).to.equal('*');
      expect(exposed(patched)).to.include.members(['upload-offset', 'x-hosted-url']);
      expect(patched.headers.get('x-hosted-url')).to.match(/^http/);
      // The answers of ours around tus (the finished upload's HEAD, its result, a refusal) say the same.
      for (const res of [
        await fetch(location, { method: 'HEAD', headers }),
        await fetch(`${location}/result`, { headers }),
        await fetch(endpoint, { method: 'POST', headers: { Origin: elsewhere, 'Tus-Resumable': '1.0.0', 'Upload-Length': '10' } }),
      ]) {
        expect(res.headers.get('access-control-allow-origin'), `${res.status} ${res.url}`).to.equal('*');
        expect(exposed(res)).to.include('x-hosted-url');
        expect(res.headers.get('access-control-allow-credentials')).to.equal(null);
      }
    });
  });

  describe('refusals', () => {
    const create = (key: string | undefined, length: number, extra: Record<string, string> = {}) =>
      fetch(endpoint, { method: 'POST', headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': String(length), ...(key ? { 'x-api-key': key } : {}), ...extra } });

    it('refuses an Upload-Length over the plan (413) and stores nothing; no key is 401', async () => {
      const user = await env.createAccount();
      const res = await create(user.apiKey, 2_000_001);
      expect(res.status).to.equal(413);
      expect(res.headers.get('location')).to.equal(null);
      expect((await create(undefined, 10)).status).to.equal(401);
    });

    it('answers a PATCH at the wrong offset with 409', async () => {
      const user = await env.createAccount();
      const created = await create(user.apiKey, 1000);
      expect(created.status).to.equal(201);
      const location = new URL(created.headers.get('location')!, endpoint).href;
      const wrong = await fetch(location, {
        method: 'PATCH',
        headers: { 'Tus-Resumable': '1.0.0', 'Upload-Offset': '500', 'Content-Type': 'application/offset+octet-stream', 'x-api-key': user.apiKey },
        body: new Uint8Array(10),
      });
      expect(wrong.status).to.equal(409);
    });

    it('refuses an executable at the end (400): nothing kept, nothing charged', async () => {
      const user = await env.createAccount();
      const objectsBefore = await storedObjects(env);
      const started = startUpload(endpoint, elfBytes(), { key: user.apiKey });
      const error = await started.done.then(() => undefined, (err: Error) => err);
      expect(String(error)).to.match(/400/);
      expect(await fileRowsOf(env, user.id)).to.deep.equal([]);
      expect(await storageUsedBy(env, user.id)).to.equal(0);
      expect(await kept(started.upload.url!)).to.equal(false);
      expect(await storedObjects(env)).to.deep.equal(objectsBefore);
    });

    it("answers another account's upload as 404", async () => {
      const owner = await env.createAccount();
      const stranger = await env.createAccount();
      const started = startUpload(endpoint, pngBytes(200_000, 3), { key: owner.apiKey, stopAfter: CHUNK });
      await started.done;
      const url = started.upload.url!;
      expect((await head(url, stranger.apiKey)).status).to.equal(404);
      expect((await head(url, owner.apiKey)).status).to.equal(200);
    });
  });
});

describe('resumable uploads that are never finished', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ workers: true, env: { RESUMABLE_UPLOAD_EXPIRY_SECONDS: '1' } });
  });
  after(() => env.close());

  it('expire: the upload answers 410, and the hourly job removes its parts', async () => {
    const user = await env.createAccount();
    const endpoint = `${env.web.url}/api/uploads`;
    const started = startUpload(endpoint, pngBytes(200_000, 4), { key: user.apiKey, stopAfter: CHUNK });
    await started.done;
    const url = started.upload.url!;
    const part = path.join(env.dataDir, 'tus', path.basename(new URL(url).pathname));
    expect((await readdir(path.dirname(part))).includes(path.basename(part))).to.equal(true);
    // Time is the subject here: the upload outlives its one second.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const res = await fetch(url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0', 'x-api-key': user.apiKey } });
    expect(res.status).to.equal(410);
    await env.container.jobs.add('uploads.expire', {});
    await eventually(async () => !(await readdir(path.dirname(part))).includes(path.basename(part)));
    expect(await fileRowsOf(env, user.id)).to.deep.equal([]);
  });
});

describe('resumable uploads after Redis was emptied (local disk)', function () {
  this.timeout(60_000);
  let env: TestEnv;
  let endpoint: string;
  before(async () => {
    env = await createTestEnv({ workers: true });
    endpoint = `${env.web.url}/api/uploads`;
  });
  after(() => env.close());

  const partOf = (started: Started) => path.join(env.dataDir, 'tus', path.basename(new URL(started.upload.url!).pathname));
  const onDisk = async (started: Started) => (await readdir(path.join(env.dataDir, 'tus'))).includes(path.basename(partOf(started)));
  /** Two partial uploads, the first last written a day and an hour ago (past the 24 h expiry). */
  async function oldAndYoung(key: string) {
    const old = startUpload(endpoint, pngBytes(200_000, 31), { key, stopAfter: CHUNK });
    const young = startUpload(endpoint, pngBytes(200_000, 32), { key, stopAfter: CHUNK });
    await Promise.all([old.done, young.done]);
    await backdate(partOf(old), 25 * HOUR);
    return { old, young };
  }

  it("keeps a finished upload's result: GET …/result and HEAD answer as before, to its uploader only", async () => {
    const user = await env.createAccount();
    const stranger = await env.createAccount();
    const started = startUpload(endpoint, pngBytes(150_000, 33), { key: user.apiKey });
    await started.done;
    const resultUrl = `${new URL(started.upload.url!).pathname}/result`;
    const before = await env.api.get(resultUrl, { key: user.apiKey });
    expect(before.status).to.equal(200);
    await emptyRedis(env);
    const after = await env.api.get(resultUrl, { key: user.apiKey });
    expect(after.status, after.text).to.equal(200);
    expect(after.body).to.deep.equal(before.body);
    const head = await fetch(started.upload.url!, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0', 'x-api-key': user.apiKey } });
    expect(head.status).to.equal(200);
    expect(head.headers.get('x-hosted-url')).to.equal(before.body.data.url);
    expect((await env.api.get(resultUrl, { key: stranger.apiKey })).status).to.equal(404);
  });

  it('the storage reconciliation removes partial uploads last written before the expiry period and keeps younger ones', async () => {
    const user = await env.createAccount();
    const { old, young } = await oldAndYoung(user.apiKey);
    await emptyRedis(env);
    expect(await env.container.services.orphanSweep.reconcile()).to.deep.include({ removed: 1 });
    expect(await onDisk(old)).to.equal(false);
    expect(await onDisk(young)).to.equal(true);
  });

  it('so does the hourly uploads.expire job', async () => {
    const user = await env.createAccount();
    const { old, young } = await oldAndYoung(user.apiKey);
    await emptyRedis(env);
    const job = await env.container.jobs.add('uploads.expire', {});
    await eventually(async () => (await job.getState()) === 'completed');
    expect(await onDisk(old)).to.equal(false);
    expect(await onDisk(young)).to.equal(true);
  });
});

describe('resumable uploads across a web process restart', function () {
  this.timeout(60_000);
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv();
  });
  after(() => env.close());

  it('continues on a new process once the one that took the first part is gone, and stores one file with the same bytes', async () => {
    const user = await env.createAccount();
    const bytes = pngBytes(600_000, 5);
    const first = await startSecondWebProcess(env);
    const started = startUpload(`${first.web.url}/api/uploads`, bytes, { key: user.apiKey, stopAfter: CHUNK });
    await started.done;
    const { pathname } = new URL(started.upload.url!);
    await first.close();
    const restarted = await startSecondWebProcess(env);
    try {
      const resumed = startUpload(`${restarted.web.url}/api/uploads`, bytes, { key: user.apiKey, uploadUrl: `${restarted.web.url}${pathname}` });
      await resumed.done;
    } finally {
      await restarted.close();
    }
    const rows = await fileRowsOf(env, user.id);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ source: 'tus', size: bytes.length });
    const stored = await env.container.storage.get(rows[0]!.objectKey);
    expect(Buffer.concat(await stored!.body.toArray()).equals(bytes)).to.equal(true);
  });
});

/**
 * For a describe block: an s3rver of its own and a service storing on it (with workers); what
 * s3rver holds open and keeps, read from its directory.
 */
function useS3Service(extra: Record<string, string>) {
  const service = {
    s3: undefined as unknown as S3rverHandle,
    env: undefined as unknown as TestEnv,
    /** The S3 multipart uploads s3rver holds open. */
    openMultipartUploads: async () => readdir(path.join(service.s3.directory, service.s3.bucket, '._S3rver_uploads')).catch(() => [] as string[]),
    bucketNames: async () => (await readdir(path.join(service.s3.directory, service.s3.bucket))).filter((name) => !name.startsWith('._S3rver')),
    /** The names a tus upload has in the bucket. */
    tusNamesOf: async (url: string) => (await service.bucketNames()).filter((name) => name.startsWith(path.basename(new URL(url).pathname))),
  };
  before(async () => {
    service.s3 = await startS3rver('hfs-tus');
    service.env = await createTestEnv({ workers: true, env: { ...s3EnvOf(service.s3), ...extra } });
  });
  after(async () => {
    await service.env?.close();
    await service.s3?.stop();
  });
  return service;
}

describe('resumable uploads on the S3 driver (s3rver)', function () {
  this.timeout(120_000);
  const service = useS3Service({ PLAN_FREE_MAX_FILE_SIZE: String(20 * 1024 * 1024) });

  it('spans S3 parts, resumes on another web process, and stores one file with the same bytes; no multipart upload is left open', async () => {
    const user = await service.env.createAccount();
    const bytes = pngBytes(11 * 1024 * 1024, 6);
    const endpoint = `${service.env.web.url}/api/uploads`;
    const first = startUpload(endpoint, bytes, { key: user.apiKey, chunkSize: 1024 * 1024, stopAfter: 6 * 1024 * 1024 });
    await first.done;
    const url = first.upload.url!;
    expect(await service.openMultipartUploads()).to.have.length(1);
    const second = await startSecondWebProcess(service.env);
    try {
      const resumed = startUpload(`${second.web.url}/api/uploads`, bytes, { key: user.apiKey, chunkSize: 1024 * 1024, uploadUrl: `${second.web.url}${new URL(url).pathname}` });
      await resumed.done;
    } finally {
      await second.close();
    }
    const rows = await fileRowsOf(service.env, user.id);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ source: 'tus', size: bytes.length });
    const stored = await service.env.container.storage.get(rows[0]!.objectKey);
    expect(Buffer.concat(await stored!.body.toArray()).equals(bytes)).to.equal(true);
    expect(await service.openMultipartUploads()).to.deep.equal([]);
    expect(await service.tusNamesOf(url)).to.deep.equal([]);
  });

  it('refuses an executable at the end (400) and leaves no object or multipart upload behind', async () => {
    const user = await service.env.createAccount();
    const started = startUpload(`${service.env.web.url}/api/uploads`, elfBytes(), { key: user.apiKey });
    const error = await started.done.then(() => undefined, (err: Error) => err);
    expect(String(error)).to.match(/400/);
    expect(await fileRowsOf(service.env, user.id)).to.deep.equal([]);
    expect(await storageUsedBy(service.env, user.id)).to.equal(0);
    expect(await service.openMultipartUploads()).to.deep.equal([]);
    expect(await service.tusNamesOf(started.upload.url!)).to.deep.equal([]);
  });
});

describe('resumable uploads on the S3 driver (s3rver) that are never finished', function () {
  this.timeout(120_000);
  const EXPIRY_SECONDS = 8;
  const service = useS3Service({ RESUMABLE_UPLOAD_EXPIRY_SECONDS: String(EXPIRY_SECONDS) });
  // Time is the subject of these tests: an upload outlives its expiry.
  const outliveExpiry = () => new Promise((resolve) => setTimeout(resolve, EXPIRY_SECONDS * 1000 + 500));

  it('expires an unfinished upload: 410, then the job aborts its multipart upload and removes its parts', async () => {
    const user = await service.env.createAccount();
    const started = startUpload(`${service.env.web.url}/api/uploads`, pngBytes(8 * 1024 * 1024, 7), { key: user.apiKey, chunkSize: 1024 * 1024, stopAfter: 6 * 1024 * 1024 });
    await started.done;
    const url = started.upload.url!;
    expect(await service.openMultipartUploads()).to.have.length(1);
    expect(await service.tusNamesOf(url)).to.not.deep.equal([]);
    await outliveExpiry();
    const res = await fetch(url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0', 'x-api-key': user.apiKey } });
    expect(res.status).to.equal(410);
    await service.env.container.jobs.add('uploads.expire', {});
    await eventually(async () => (await service.openMultipartUploads()).length === 0 && (await service.tusNamesOf(url)).length === 0);
    expect(await fileRowsOf(service.env, user.id)).to.deep.equal([]);
  });

  it('after Redis was emptied: keeps results; the reconciliation removes expired uploads and leftovers from the bucket, and keeps young ones', async () => {
    const user = await service.env.createAccount();
    const endpoint = `${service.env.web.url}/api/uploads`;
    const finished = startUpload(endpoint, pngBytes(150_000, 34), { key: user.apiKey });
    await finished.done;
    const old = startUpload(endpoint, pngBytes(200_000, 35), { key: user.apiKey, stopAfter: CHUNK });
    await old.done;
    // A finished upload's objects, a day old, left by a process killed before it removed them.
    const leftover = randomUUID();
    for (const key of [leftover, `${leftover}.info`]) {
      await service.env.container.storage.put(key, Readable.from([pngBytes(1000)]));
      await backdate(path.join(service.s3.directory, service.s3.bucket, `${key}._S3rver_object`), 25 * HOUR);
    }
    await outliveExpiry();
    const young = startUpload(endpoint, pngBytes(200_000, 36), { key: user.apiKey, stopAfter: CHUNK });
    await young.done;
    expect(await service.openMultipartUploads()).to.have.length(2);

    await emptyRedis(service.env);
    const result = await service.env.api.get(`${new URL(finished.upload.url!).pathname}/result`, { key: user.apiKey });
    expect(result.status, result.text).to.equal(200);
    expect(result.body.data).to.include({ originalFilename: 'resumable.png', sizeBytes: 150_000 });
    await service.env.container.services.orphanSweep.reconcile();
    expect(await service.tusNamesOf(old.upload.url!)).to.deep.equal([]);
    expect((await service.bucketNames()).filter((name) => name.startsWith(leftover))).to.deep.equal([]);
    expect(await service.tusNamesOf(young.upload.url!)).to.not.deep.equal([]);
    expect(await service.openMultipartUploads()).to.have.length(1);
    await young.upload.abort(true);
    expect(await service.openMultipartUploads()).to.deep.equal([]);
  });
});

describe('resumable uploads against the plan at creation', function () {
  this.timeout(60_000);
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ env: { PLAN_FREE_MAX_FILE_SIZE: '300000', PLAN_FREE_DAILY_LIMIT: '1', PLAN_FREE_STORAGE_LIMIT: '400000' } });
  });
  after(() => env.close());

  const create = (key: string, headers: Record<string, string>) =>
    fetch(`${env.web.url}/api/uploads`, { method: 'POST', headers: { 'Tus-Resumable': '1.0.0', 'x-api-key': key, ...headers } });

  it('refuses past the daily count (429 with retryAfter) and with storage full (403), before any byte is sent', async () => {
    const user = await env.createAccount();
    await startUpload(`${env.web.url}/api/uploads`, pngBytes(250_000, 8), { key: user.apiKey }).done;
    const overCount = await create(user.apiKey, { 'Upload-Length': '1000' });
    expect(overCount.status).to.equal(429);
    const body = JSON.parse(await overCount.text());
    expect(body.success).to.equal(false);
    expect(body.retryAfter).to.be.a('number').and.above(0);
    expect(overCount.headers.get('location')).to.equal(null);

    const full = await env.createAccount();
    await env.container.db.update(accounts).set({ storageUsed: 400_000 }).where(eq(accounts.id, full.id));
    const overStorage = await create(full.apiKey, { 'Upload-Length': '1000' });
    expect(overStorage.status).to.equal(403);
    expect(overStorage.headers.get('location')).to.equal(null);
  });

  it('caps a deferred length at the plan size while the bytes flow (413), keeping nothing', async () => {
    const user = await env.createAccount();
    const created = await create(user.apiKey, { 'Upload-Defer-Length': '1' });
    expect(created.status).to.equal(201);
    const location = new URL(created.headers.get('location')!, env.web.url).href;
    const patch = await fetch(location, {
      method: 'PATCH',
      headers: { 'Tus-Resumable': '1.0.0', 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream', 'x-api-key': user.apiKey },
      body: new Uint8Array(300_001),
    });
    expect(patch.status).to.equal(413);
    expect(await fileRowsOf(env, user.id)).to.deep.equal([]);
    expect(await storageUsedBy(env, user.id)).to.equal(0);
  });
});
