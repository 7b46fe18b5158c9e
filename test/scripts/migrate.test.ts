import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { connectPostgres, openPglite, type DatabaseHandle } from '../../shared/db/client.js';
import { emptyPostgresDatabase } from '../helpers/engines.js';
import { runScript } from '../helpers/run-script.js';

const TABLES = [
  'accounts', 'custom_domains', 'files', 'folder_keys', 'folders', 'notifications', 'oauth_models',
  'poll_options', 'poll_votes', 'polls', 'sessions',
];

async function tablesOf(handle: DatabaseHandle): Promise<string[]> {
  const result = await handle.db.execute<{ table_name: string }>(
    sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
  );
  return (result as unknown as { rows: { table_name: string }[] }).rows.map((r) => r.table_name);
}

describe('migrations (the release process)', function () {
  this.timeout(120_000);

  it('apply on a fresh PostgreSQL database through `release`, and again as a no-op', async function () {
    const url = await emptyPostgresDatabase();
    if (!url) return this.skip(); // only when TEST_DATABASE_URL names a PostgreSQL server (CI sets it)
    const env = { DATABASE_URL: url, SECRET_KEY: randomBytes(32).toString('hex') };
    const first = await runScript('scripts/migrate.ts', [], env);
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stdout).to.include('migrations applied (postgres)');
    expect((await runScript('scripts/migrate.ts', [], env)).code).to.equal(0);
    const handle = connectPostgres(url, 1);
    try {
      expect(await tablesOf(handle)).to.include.members(TABLES);
    } finally {
      await handle.close();
    }
  });

  it('apply on a fresh embedded PGlite database in DATA_DIR', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'hfs-migrate-'));
    try {
      const run = await runScript('scripts/migrate.ts', [], { DATA_DIR: dataDir, DATABASE_URL: '' });
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.include('migrations applied (pglite)');
      const handle = await openPglite(path.join(dataDir, 'db'));
      try {
        expect(await tablesOf(handle)).to.include.members(TABLES);
      } finally {
        await handle.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
