import { loadConfig } from '../shared/config.js';
import { openDatabase } from '../shared/db/open-database.js';
import { createLogger } from '../shared/logger.js';
import { exitOnUncaughtErrors } from '../shared/shutdown.js';

// The `release` process: applies pending migrations, then exits.
const config = loadConfig();
exitOnUncaughtErrors(createLogger(config.logLevel, 'hfs-release'), 'release');
const database = await openDatabase(config);
try {
  await database.migrate();
  process.stdout.write(`migrations applied (${database.driver})\n`);
} finally {
  await database.close();
}
