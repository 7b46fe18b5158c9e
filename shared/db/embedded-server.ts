import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import { connectPostgres, pgliteOf, type DatabaseHandle } from './client.js';

const socketDir = (dataDir: string) => path.join(dataDir, 'run');
const PG_PORT = 5432;
const socketFile = (dataDir: string) => path.join(socketDir(dataDir), `.s.PGSQL.${PG_PORT}`);

/** Shares the embedded database of this process with local tools over a Unix socket in DATA_DIR. */
export async function serveEmbeddedDatabase(handle: DatabaseHandle, dataDir: string): Promise<() => Promise<void>> {
  await mkdir(socketDir(dataDir), { recursive: true });
  await rm(socketFile(dataDir), { force: true });
  const server = new PGLiteSocketServer({ db: pgliteOf(handle), path: socketFile(dataDir), maxConnections: 8 });
  await server.start();
  return async () => {
    await server.stop();
    await rm(socketFile(dataDir), { force: true });
  };
}

/** A connection through a running `npm start`, or undefined when none is serving the data dir. */
export async function connectEmbeddedServer(dataDir: string): Promise<DatabaseHandle | undefined> {
  if (!existsSync(socketFile(dataDir))) return undefined;
  const target = { host: socketDir(dataDir), port: PG_PORT, user: 'postgres', database: 'postgres' };
  const probe = new pg.Client(target);
  try {
    await probe.connect();
    await probe.end();
  } catch {
    // A socket left behind by a process that died: nobody holds the database.
    await rm(socketFile(dataDir), { force: true });
    return undefined;
  }
  return connectPostgres(target, 4);
}
