import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { connectPostgres, pgliteOf, type DatabaseHandle } from './client.js';
import { servePgliteSocket } from './pglite-socket-server.js';

const socketDir = (dataDir: string) => path.join(dataDir, 'run');
const PG_PORT = 5432;
const socketFile = (dataDir: string) => path.join(socketDir(dataDir), `.s.PGSQL.${PG_PORT}`);

/**
 * Shares the embedded database of this process over a Unix socket in DATA_DIR with local tools (the
 * admin CLI) and npm start's web processes when it runs several.
 */
export async function serveEmbeddedDatabase(handle: DatabaseHandle, dataDir: string): Promise<() => Promise<void>> {
  await mkdir(socketDir(dataDir), { recursive: true });
  await rm(socketFile(dataDir), { force: true });
  const stop = await servePgliteSocket(pgliteOf(handle), socketFile(dataDir));
  return async () => {
    await stop();
    await rm(socketFile(dataDir), { force: true });
  };
}

/**
 * PGlite has one session for all the socket's connections: a statement that one of them prepared under
 * a name exists for the others too, whose client would prepare it again and fail ("already exists").
 * So through the socket every statement is unnamed, parsed with its query, as PGlite does in process.
 */
class UnnamedStatementClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    const query = this.query.bind(this) as (...args: unknown[]) => unknown;
    this.query = ((statement: unknown, ...rest: unknown[]) => query(withoutName(statement), ...rest)) as pg.Client['query'];
  }
}

function withoutName(statement: unknown): unknown {
  if (typeof statement !== 'object' || statement === null || !('name' in statement) || 'submit' in statement) return statement;
  return { ...statement, name: undefined };
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
  return connectPostgres({ ...target, Client: UnnamedStatementClient }, 4);
}
