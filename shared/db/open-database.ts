import path from 'node:path';
import { connectPostgres, openPglite, type DatabaseHandle } from './client.js';
import { connectEmbeddedServer } from './embedded-server.js';

/**
 * PostgreSQL at DATABASE_URL (its statements bounded by `statementTimeoutMs`, if given); otherwise the
 * embedded PGlite under DATA_DIR, which cannot cancel a statement. PGlite allows one process, so when
 * `npm start` already holds it, other processes (the admin CLI) go through its socket.
 */
export async function openDatabase(config: { databaseUrl?: string | undefined; dataDir: string }, statementTimeoutMs?: number): Promise<DatabaseHandle> {
  if (config.databaseUrl) return connectPostgres(config.databaseUrl, undefined, statementTimeoutMs);
  return (await connectEmbeddedServer(config.dataDir)) ?? openPglite(path.join(config.dataDir, 'db'));
}
