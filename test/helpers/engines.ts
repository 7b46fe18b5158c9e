import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { connectPostgres, openPglite, pgliteOf, type DatabaseHandle } from '../../shared/db/client.js';
import { startRedisServer, type LocalRedis } from '../../scripts/lib/redis-server.js';
import { freePort } from './ports.js';

/**
 * Engines shared by the whole run, started once by the global fixtures: a Redis (REDIS_URL, or a
 * spawned redis-server) and a migrated template database (TEST_DATABASE_URL's PostgreSQL, or PGlite).
 * Each test file then gets its own database cloned from the template.
 */
type DbEngine = { kind: 'postgres'; adminUrl: string; template: string } | { kind: 'pglite'; dump: Blob };

let localRedis: LocalRedis | undefined;
let redisUrl = '';
let dbEngine: DbEngine | undefined;
const created: string[] = [];
const PREFIX = `hfs_${process.pid}_`;

/** Which database engine this run uses, in words for the run's first and last lines. */
export function engineBanner(): string {
  return dbEngine?.kind === 'postgres'
    ? 'Database engine for this run: PostgreSQL (TEST_DATABASE_URL)'
    : 'Database engine for this run: PGlite (embedded; set TEST_DATABASE_URL to run every test on PostgreSQL)';
}

const skippedOnPglite: string[] = [];

/** Skips a test that needs PostgreSQL (a second connection, another process); the run lists it at the end. */
export function needsPostgres(test: Mocha.Context, databaseUrl: string | undefined): void {
  if (databaseUrl) return;
  skippedOnPglite.push(test.test?.fullTitle() ?? 'a test');
  test.skip();
}

export function skippedForEngine(): readonly string[] {
  return skippedOnPglite;
}

export function testRedisUrl(): string {
  if (!redisUrl) throw new Error('engines not started (global fixtures missing)');
  return redisUrl;
}

export function databaseUrlFor(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Databases of earlier runs whose process is gone. */
async function dropStaleDatabases(adminUrl: string) {
  await admin(adminUrl, async (client) => {
    const { rows } = await client.query<{ datname: string }>(`select datname from pg_database where datname like 'hfs\\_%'`);
    for (const { datname } of rows) {
      const pid = Number(datname.split('_')[1]);
      if (!Number.isInteger(pid) || isAlive(pid)) continue;
      await client.query(`drop database if exists "${datname}" with (force)`);
    }
  });
}

/** Whether a process with this pid is running (signal 0 checks without sending). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startEngines() {
  const envRedis = process.env.REDIS_URL;
  if (envRedis) redisUrl = envRedis;
  else {
    localRedis = await startRedisServer(await freePort());
    redisUrl = localRedis.url;
  }

  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) {
    await dropStaleDatabases(adminUrl);
    const template = `${PREFIX}tpl`;
    await admin(adminUrl, (c) => c.query(`create database "${template}"`));
    created.push(template);
    const handle = connectPostgres(databaseUrlFor(adminUrl, template), 2);
    await handle.migrate();
    await handle.close();
    dbEngine = { kind: 'postgres', adminUrl, template };
  } else {
    const handle = await openPglite(undefined);
    await handle.migrate();
    const dump = await pgliteOf(handle).dumpDataDir('gzip');
    await handle.close();
    dbEngine = { kind: 'pglite', dump };
  }
}

export async function stopEngines() {
  if (dbEngine?.kind === 'postgres') {
    const { adminUrl } = dbEngine;
    await admin(adminUrl, async (client) => {
      for (const name of created.reverse()) await client.query(`drop database if exists "${name}" with (force)`);
    });
  }
  await localRedis?.stop();
}

export function databaseKind(): 'postgres' | 'pglite' {
  if (!dbEngine) throw new Error('engines not started');
  return dbEngine.kind;
}

/**
 * A fresh, migrated database of its own for one test file; `url` is set for PostgreSQL, whose
 * statements are bounded by `statementTimeoutMs` as the web process's are.
 */
export async function cloneDatabase(statementTimeoutMs?: number): Promise<{ handle: DatabaseHandle; url?: string }> {
  if (!dbEngine) throw new Error('engines not started');
  if (dbEngine.kind === 'pglite') return { handle: await openPglite(undefined, dbEngine.dump) };
  const { adminUrl, template } = dbEngine;
  const name = `${PREFIX}${randomBytes(4).toString('hex')}`;
  await admin(adminUrl, (c) => c.query(`create database "${name}" template "${template}"`));
  created.push(name);
  const url = databaseUrlFor(adminUrl, name);
  return { handle: connectPostgres(url, 10, statementTimeoutMs), url };
}

/** An empty database (no migrations) for tests of the migrations themselves. */
export async function emptyPostgresDatabase(): Promise<string | undefined> {
  if (dbEngine?.kind !== 'postgres') return undefined;
  const name = `${PREFIX}${randomBytes(4).toString('hex')}`;
  await admin(dbEngine.adminUrl, (c) => c.query(`create database "${name}"`));
  created.push(name);
  return databaseUrlFor(dbEngine.adminUrl, name);
}

/**
 * The environment the project's scripts need to run as their own processes on a database of their
 * own: this run's PostgreSQL (an empty database and a secret) or else an embedded PGlite in `dataDir`.
 */
export async function scriptDatabaseEnv(dataDir: string, redisPrefix: string): Promise<{ env: Record<string, string>; databaseUrl: string | undefined }> {
  const databaseUrl = await emptyPostgresDatabase();
  const common = { DATA_DIR: dataDir, REDIS_URL: testRedisUrl(), REDIS_PREFIX: `${redisPrefix}${randomBytes(3).toString('hex')}` };
  const env = databaseUrl ? { ...common, DATABASE_URL: databaseUrl, SECRET_KEY: randomBytes(32).toString('hex') } : { ...common, DATABASE_URL: '' };
  return { env, databaseUrl };
}

/** Migrates the database of a script env (its PostgreSQL, or the embedded PGlite in `dataDir`); `then` runs on it before it closes. */
export async function migrateScriptDatabase(dataDir: string, databaseUrl: string | undefined, then?: (handle: DatabaseHandle) => Promise<void>) {
  const handle = databaseUrl ? connectPostgres(databaseUrl, 1) : await openPglite(path.join(dataDir, 'db'));
  try {
    await handle.migrate();
    await then?.(handle);
  } finally {
    await handle.close();
  }
}

/**
 * A data dir and a migrated database of their own for the project's scripts run as processes:
 * `scriptDatabaseEnv` and `migrateScriptDatabase` in one (`seed` runs on the database first).
 */
export async function preparedScriptEnv(redisPrefix: string, seed?: (handle: DatabaseHandle) => Promise<void>) {
  const dataDir = await mkdtemp(path.join(tmpdir(), `hfs-${redisPrefix}-`));
  const { env, databaseUrl } = await scriptDatabaseEnv(dataDir, redisPrefix);
  await migrateScriptDatabase(dataDir, databaseUrl, seed);
  return { env, dataDir };
}
