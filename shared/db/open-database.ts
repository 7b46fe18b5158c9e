import path from 'node:path';
import { connectPostgres, openPglite, type DatabaseHandle } from './client.js';
import { connectEmbeddedServer } from './embedded-server.js';

/**
 * PostgreSQL at DATABASE_URL; otherwise the embedded PGlite under DATA_DIR. PGlite allows one process,
 * so when `npm start` already holds it, other processes (the admin CLI) go through its socket.
 */
export async function openDatabase(config: { databaseUrl?: string | undefined; dataDir: string }): Promise<DatabaseHandle> {
  if (config.databaseUrl) return connectPostgres(config.databaseUrl);
  return (await connectEmbeddedServer(config.dataDir)) ?? openPglite(path.join(config.dataDir, 'db'));
}
