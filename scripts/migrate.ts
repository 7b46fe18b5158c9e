import { loadConfig } from '../shared/config.js';
import { openDatabase } from '../shared/db/open-database.js';

// The `release` process: applies pending migrations, then exits.
const database = await openDatabase(loadConfig());
try {
  await database.migrate();
  process.stdout.write(`migrations applied (${database.driver})\n`);
} finally {
  await database.close();
}
