import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import type { DependencyHealth } from '../dependency-health.js';
import * as integrationTables from './integrations.schema.js';
import * as oauthTables from './oauth.schema.js';
import * as tables from './schema.js';

const schema = { ...tables, ...oauthTables, ...integrationTables };

/** One schema, two drivers: the services never know which one they run on. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;
/** A transaction of that database, as `db.transaction` hands it to its callback. */
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

export interface DatabaseHandle {
  db: Database;
  driver: 'postgres' | 'pglite';
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** Tells `health` when connections fail and when a new one succeeds (PostgreSQL; PGlite cannot fail so). */
  watch?(health: DependencyHealth): void;
}

const CONNECT_TIMEOUT_MS = 5000;

const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * A pool of `poolSize` connections; with `statementTimeoutMs`, PostgreSQL cancels any statement of
 * theirs that runs or waits on a lock longer (SQLSTATE 57014), and the transaction it was in rolls back.
 */
export function connectPostgres(target: string | pg.PoolConfig, poolSize = 20, statementTimeoutMs?: number): DatabaseHandle {
  const connection = typeof target === 'string' ? { connectionString: target } : target;
  const pool = new pg.Pool({
    ...connection,
    max: poolSize,
    // A server that does not answer (a lost host, not a refused port) fails the query in seconds.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Sent when each connection starts, so it costs no round trip per query.
    ...(statementTimeoutMs ? { statement_timeout: statementTimeoutMs } : {}),
  });
  // An idle connection that the server drops (restart, failover) must not crash the process; the
  // pool replaces it on the next query.
  pool.on('error', () => undefined);
  const db = drizzlePg({ client: pool, schema });
  return {
    db: db as unknown as Database,
    driver: 'postgres',
    // A migration (an index built over a big table) may rightly outlast the bound.
    migrate: statementTimeoutMs ? () => migrateUnbounded(connection) : () => migratePg(db, { migrationsFolder }),
    close: () => pool.end(),
    watch(health) {
      pool.on('error', (err) => health.failed(err));
      pool.on('connect', () => health.recovered());
    },
  };
}

async function migrateUnbounded(connection: pg.ClientConfig): Promise<void> {
  const client = new pg.Client(connection);
  await client.connect();
  try {
    await migratePg(drizzlePg({ client, schema }), { migrationsFolder });
  } finally {
    await client.end();
  }
}

/** PGlite persisted in `dir`, or in memory (tests) when `dir` is undefined; `from` loads a dump. */
export async function openPglite(dir: string | undefined, from?: Blob): Promise<DatabaseHandle> {
  if (dir) mkdirSync(dir, { recursive: true });
  const client = await PGlite.create({
    ...(dir ? { dataDir: dir } : {}),
    ...(from ? { loadDataDir: from } : {}),
    extensions: { pg_trgm },
  });
  const db = drizzlePglite({ client, schema });
  return {
    db: db as unknown as Database,
    driver: 'pglite',
    migrate: () => migratePglite(db, { migrationsFolder }),
    close: () => client.close(),
  };
}

export function pgliteOf(handle: DatabaseHandle): PGlite {
  return (handle.db as unknown as { $client: PGlite }).$client;
}
