import { expect } from 'chai';
import { inArray } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { rm, utimes } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parseConfig } from '../../shared/config.js';
import { files } from '../../shared/db/schema.js';
import { createStorage, newObjectKey, type StorageDriver } from '../../shared/storage/index.js';
import { preparedScriptEnv } from '../helpers/engines.js';
import { eventually } from '../helpers/eventually.js';
import { pngBytes } from '../helpers/media.js';
import { runScript } from '../helpers/run-script.js';
import { s3EnvOf, startS3rver, type S3rverHandle } from '../helpers/s3rver.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, getWithHost, upload } from '../helpers/uploads.js';

const HOUR = 60 * 60_000;

interface StoreCase {
  name: string;
  start(): Promise<{
    env: Record<string, string>;
    /** Dates an object's last modification `ms` ago, in the store itself. */
    age(test: TestEnv, key: string, ms: number): Promise<void>;
    stop(): Promise<void>;
  }>;
}

const stores: StoreCase[] = [
  {
    name: 'local',
    async start() {
      return {
        env: {},
        age: (test, key, ms) => backdate(path.join(test.container.config.storage.localRoot, key), ms),
        stop: async () => undefined,
      };
    },
  },
  {
    name: 's3 (s3rver)',
    async start() {
      const s3: S3rverHandle = await startS3rver();
      return {
        env: s3EnvOf(s3),
        // s3rver answers LastModified from the mtime of the file that holds the object's bytes.
        age: (_test, key, ms) => backdate(path.join(s3.directory, s3.bucket, `${key}._S3rver_object`), ms),
        stop: () => s3.stop(),
      };
    },
  },
];

for (const store of stores) {
  describe(`orphan sweep: ${store.name} storage`, function () {
    this.timeout(60_000);
    let started: Awaited<ReturnType<StoreCase['start']>>;
    let env: TestEnv;
    let storage: StorageDriver;

    before(async () => {
      started = await store.start();
      env = await createTestEnv({ workers: true, env: started.env });
      storage = env.container.storage;
      // The hourly scheduler's first run starts with the workers; a sweep racing the tests' own would take their orphans.
      const objects = env.container.jobs.queue('objects');
      await eventually(async () => {
        const running = await objects.getJobs(['active', 'waiting', 'prioritized']);
        return !running.some((job) => job.name === 'storage.reconcile');
      }, 30_000);
    });
    after(async () => {
      await env.close();
      await started.stop();
    });

    /** What a process killed mid-upload leaves: an object that no row will ever name. */
    async function orphan(ageMs: number): Promise<string> {
      const key = newObjectKey();
      await storage.put(key, Readable.from([randomBytes(1000)]));
      if (ageMs > 0) await started.age(env, key, ageMs);
      return key;
    }

    it('deletes objects no file row names once older than the minimum age, and keeps every object a row names', async () => {
      const alice = await env.createAccount();
      const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(1000), json: true });
      expect(res.status).to.equal(200);
      const [row] = await fileRowsOf(env, alice.id);
      await started.age(env, row!.objectKey, 2 * HOUR);
      const lost = [await orphan(2 * HOUR), await orphan(3 * HOUR)];

      const result = await env.container.services.orphanSweep.reconcile();

      expect(result.removed).to.equal(2);
      expect(result.scanned).to.be.at.least(3);
      for (const key of lost) expect(await storage.head(key), key).to.equal(null);
      expect(await storage.head(row!.objectKey)).to.not.equal(null);
      const served = await getWithHost((res.body.data as { url: string }).url);
      expect(served.status).to.equal(200);
      expect(served.body.equals(pngBytes(1000))).to.equal(true);
    });

    it('leaves an orphan younger than the minimum age (an hour by default): its upload may still be running', async () => {
      const young = await orphan(0);
      const result = await env.container.services.orphanSweep.reconcile();
      expect(result.removed).to.equal(0);
      expect(await storage.head(young)).to.not.equal(null);

      expect((await env.container.services.orphanSweep.reconcile({ minAgeMs: 10 * 60_000 })).removed).to.equal(0);
      await started.age(env, young, HOUR + 60_000);
      expect((await env.container.services.orphanSweep.reconcile()).removed).to.equal(1);
      expect(await storage.head(young)).to.equal(null);
    });

    it('runs hourly through the real workers as the storage.reconcile job', async () => {
      const scheduler = await env.container.jobs.queue('objects').getJobScheduler('storage-reconcile');
      expect(scheduler?.every).to.equal(HOUR);

      const lost = await orphan(2 * HOUR);
      const queued = await env.container.jobs.add('storage.reconcile', {});
      const objects = env.container.jobs.queue('objects');
      await eventually(async () => (await objects.getJob(queued.id!))?.finishedOn !== undefined);
      const job = await objects.getJob(queued.id!);
      expect(job!.failedReason).to.equal(undefined);
      expect(job!.returnvalue).to.include({ removed: 1 });
      expect(await storage.head(lost)).to.equal(null);
    });

    it('reports files whose object is missing or of the wrong size, and changes neither', async () => {
      const alice = await env.createAccount();
      for (const seed of [1, 2, 3]) expect((await upload(env, { key: alice.apiKey, bytes: pngBytes(1000, seed), json: true })).status).to.equal(200);
      const [gone, shrunk] = await fileRowsOf(env, alice.id);
      await storage.delete(gone!.objectKey);
      await storage.delete(shrunk!.objectKey);
      await storage.put(shrunk!.objectKey, Readable.from([pngBytes(600)]));

      const result = await env.container.services.orphanSweep.reconcile();

      expect(result.missing).to.deep.equal([{ fileId: gone!.id, filename: gone!.filename, account: alice.username, objectKey: gone!.objectKey }]);
      expect(result.wrongSize).to.deep.equal([{ fileId: shrunk!.id, filename: shrunk!.filename, account: alice.username, objectKey: shrunk!.objectKey, expected: 1000, actual: 600 }]);
      expect(result.checked).to.be.at.least(3);
      expect(await fileRowsOf(env, alice.id)).to.have.length(3);
      expect((await storage.head(shrunk!.objectKey))?.size).to.equal(600);
      // The other tests of this store see intact files only.
      await env.container.db.delete(files).where(inArray(files.id, [gone!.id, shrunk!.id]));
      await storage.delete(shrunk!.objectKey);
    });
  });
}

describe('admin CLI: storage reconcile', function () {
  this.timeout(120_000);
  let env: Record<string, string>;
  let dataDir: string;
  let storage: StorageDriver;
  const named = newObjectKey();

  before(async () => {
    ({ env, dataDir } = await preparedScriptEnv('reconcile', async (handle) => {
      await handle.db.insert(files).values({
        filename: 'kept.png',
        originalName: 'kept.png',
        objectKey: named,
        shortCode: randomBytes(4).toString('hex'),
        size: 1000,
        mimeType: 'image/png',
        source: 'test',
        urlFormat: 'anonymous',
        deletionTokenHash: randomBytes(16).toString('hex'),
      });
    }));
    // The store the script opens: the same config, read from the same environment.
    storage = createStorage(parseConfig(env).storage);
    await storage.put(named, Readable.from([pngBytes(1000)]));
  });
  after(async () => {
    await storage.close?.();
    await rm(dataDir, { recursive: true, force: true });
  });

  const admin = async (...args: string[]) => {
    const result = await runScript('scripts/admin.ts', args, env);
    return { ...result, json: result.code === 0 ? JSON.parse(result.stdout) : undefined };
  };

  it('keeps orphans of the last hour by default, and removes every orphan with --min-age 0', async () => {
    const lost = newObjectKey();
    await storage.put(lost, Readable.from([randomBytes(1000)]));

    const cautious = await admin('storage', 'reconcile');
    expect(cautious.code, cautious.stderr).to.equal(0);
    expect(cautious.stdout).to.equal('{"scanned":2,"removed":0,"checked":1,"missing":[],"wrongSize":[]}\n');
    expect(await storage.head(lost)).to.not.equal(null);

    const now = await admin('storage', 'reconcile', '--min-age', '0');
    expect(now.code, now.stderr).to.equal(0);
    expect(now.json).to.deep.equal({ scanned: 2, removed: 1, checked: 1, missing: [], wrongSize: [] });
    expect(await storage.head(lost)).to.equal(null);
    expect(await storage.head(named)).to.not.equal(null);
  });

  it('exits 1 with the usage on a bad minimum age or subcommand', async () => {
    for (const args of [['storage', 'reconcile', '--min-age', 'soon'], ['storage', 'reconcile', '--min-age=-5'], ['storage']]) {
      const res = await admin(...args);
      expect(res.code, args.join(' ')).to.equal(1);
      expect(res.stderr).to.match(/usage: storage reconcile \[--min-age SECONDS\]/);
    }
    expect(await storage.head(named)).to.not.equal(null);
  });
});

async function backdate(file: string, ms: number): Promise<void> {
  const at = new Date(Date.now() - ms);
  await utimes(file, at, at);
}
