import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { accounts } from '../../shared/db/schema.js';
import type { ApiResponse } from '../helpers/api-client.js';
import { needsPostgres } from '../helpers/engines.js';
import { captureLogs } from '../helpers/log-capture.js';
import { pngBytes } from '../helpers/media.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, getWithHost, storedObjects, upload } from '../helpers/uploads.js';

const TIMEOUT_MS = 1000;

describe('a request whose SQL statement waits past DB_STATEMENT_TIMEOUT_MS', function () {
  this.timeout(30_000);
  const logs = captureLogs();
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ logger: logs.logger, env: { DB_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS) } });
  });
  after(() => env.close());

  async function uploadOne(apiKey: string) {
    const res = await upload(env, { key: apiKey, bytes: pngBytes(2000), name: 'photo.png', json: true });
    expect(res.status, res.text).to.equal(200);
    return res.body.data as { url: string; filename: string };
  }

  async function accountRow(id: string) {
    const [row] = await env.container.db.select().from(accounts).where(eq(accounts.id, id));
    return row!;
  }

  /**
   * Sends `request` while another connection holds `lock` (a `select … for update` of one row) in an
   * open transaction, and releases the row once the answer is in, or once the bound + 1 s has passed
   * without one. Answers the response and how long it took.
   */
  async function whileRowLocked(lock: string, params: unknown[], request: () => Promise<ApiResponse>) {
    const locker = new pg.Client({ connectionString: env.databaseUrl });
    await locker.connect();
    let deadline: NodeJS.Timeout | undefined;
    try {
      await locker.query('begin');
      expect((await locker.query(lock, params)).rowCount, 'the row to hold').to.equal(1);
      const started = Date.now();
      const unanswered = new Promise<never>((_, reject) => {
        deadline = setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS + 1000} ms while the row was held`)), TIMEOUT_MS + 1000);
      });
      const res = await Promise.race([request(), unanswered]);
      return { res, elapsed: Date.now() - started };
    } finally {
      clearTimeout(deadline);
      await locker.query('rollback').catch(() => undefined);
      await locker.end();
    }
  }

  /** 503 with Retry-After and the error body, within the bound plus a second; PostgreSQL is not reported down. */
  function expectTooSlow({ res, elapsed }: { res: ApiResponse; elapsed: number }, lines: () => string[]) {
    expect(res.status, res.text).to.equal(503);
    expect(res.headers.get('retry-after')).to.equal('5');
    expect(res.body).to.deep.equal({ success: false, error: 'The database did not answer in time; retry', retryAfter: 5 });
    expect(elapsed, 'answered after waiting out the bound').to.be.at.least(TIMEOUT_MS - 50);
    expect(elapsed, 'answered within the bound + 1 s').to.be.below(TIMEOUT_MS + 1000);
    expect(env.container.health.postgres.isDown, 'a busy row is no outage').to.equal(false);
    expect(lines().join('\n')).not.to.match(/postgres unavailable|unhandled error/);
  }

  it('PUT …/rename of a file whose row another transaction holds: 503 + Retry-After, and the file keeps its name', async function () {
    needsPostgres(this, env.databaseUrl); // PGlite has one connection and cannot cancel a statement
    const alice = await env.createAccount();
    const file = await uploadOne(alice.apiKey);
    const written = logs.from();
    const answer = await whileRowLocked('select id from files where account_id = $1 and filename = $2 for update', [alice.id, file.filename], () =>
      env.api.put(`/api/user/images/${file.filename}/rename`, { key: alice.apiKey, json: { newFilename: 'renamed.png' } }),
    );
    expectTooSlow(answer, written.lines);
    expect((await fileRowsOf(env, alice.id)).map((r) => r.filename)).to.deep.equal([file.filename]);
    // The row free again, the same request goes through.
    const retried = await env.api.put(`/api/user/images/${file.filename}/rename`, { key: alice.apiKey, json: { newFilename: 'renamed.png' } });
    expect(retried.status, retried.text).to.equal(200);
  });

  it('DELETE of a file while its account row is held: the delete inside the transaction is rolled back', async function () {
    needsPostgres(this, env.databaseUrl);
    const alice = await env.createAccount();
    const file = await uploadOne(alice.apiKey);
    const before = await accountRow(alice.id);
    const objects = await storedObjects(env);
    const written = logs.from();
    // The file's row is deleted first, then the account's storage given back: that second statement waits.
    const answer = await whileRowLocked('select id from accounts where id = $1 for update', [alice.id], () =>
      env.api.delete(`/api/user/images/${file.filename}`, { key: alice.apiKey }),
    );
    expectTooSlow(answer, written.lines);
    expect((await fileRowsOf(env, alice.id)).map((r) => r.filename)).to.deep.equal([file.filename]);
    const after = await accountRow(alice.id);
    expect({ storageUsed: after.storageUsed, fileCount: after.fileCount }).to.deep.equal({ storageUsed: before.storageUsed, fileCount: before.fileCount });
    expect(await storedObjects(env)).to.have.members(objects);
    expect((await getWithHost(file.url)).status, 'still served').to.equal(200);
  });

  it('POST /api/upload to an account whose row is held: nothing recorded, nothing charged, no object left', async function () {
    needsPostgres(this, env.databaseUrl);
    const alice = await env.createAccount();
    const before = await accountRow(alice.id);
    const objects = await storedObjects(env);
    const written = logs.from();
    // The body is stored, then the charge waits on the account row.
    const answer = await whileRowLocked('select id from accounts where id = $1 for update', [alice.id], () =>
      upload(env, { key: alice.apiKey, bytes: pngBytes(3000), name: 'late.png', json: true }),
    );
    expectTooSlow(answer, written.lines);
    expect(await fileRowsOf(env, alice.id)).to.deep.equal([]);
    const after = await accountRow(alice.id);
    expect({ storageUsed: after.storageUsed, fileCount: after.fileCount, usageDayCount: after.usageDayCount }).to.deep.equal({
      storageUsed: before.storageUsed,
      fileCount: before.fileCount,
      usageDayCount: before.usageDayCount,
    });
    expect(await storedObjects(env)).to.have.members(objects);
  });
});
