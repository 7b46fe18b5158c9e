import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import path from 'node:path';
import { startWebServer } from '../api/server.js';
import { loadConfig } from '../shared/config.js';
import { createContainer } from '../shared/container.js';
import { connectPostgres, openPglite } from '../shared/db/client.js';
import { serveEmbeddedDatabase } from '../shared/db/embedded-server.js';
import { setStreamingHeapGrowth } from '../shared/heap-growth.js';
import { createLogger } from '../shared/logger.js';
import { onShutdown } from '../shared/shutdown.js';
import { QUEUE_NAMES } from '../shared/jobs.js';
import { handlers } from '../workers/handlers/index.js';
import { startWorkers } from '../workers/worker-pool.js';
import { hasRedisServer, redisAnswers, startRedisServer, type LocalRedis } from './lib/redis-server.js';

const VISION_NICENESS = 10;

// `npm start`: the whole service in one process on the embedded defaults (PGlite, local disk).
setStreamingHeapGrowth();
let config = loadConfig();
const logger = createLogger(config.logLevel);

let localRedis: LocalRedis | undefined;
if (!(await redisAnswers(config.redisUrl))) {
  const redisUrl = new URL(config.redisUrl);
  const isLocal = ['127.0.0.1', 'localhost', '[::1]'].includes(redisUrl.hostname);
  if (!isLocal || !hasRedisServer()) {
    process.stderr.write(
      `Redis does not answer at ${config.redisUrl}${isLocal ? ' and redis-server is not installed' : ''}.\n` +
        'Install Redis 6.2 or newer (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis),\n' +
        'or point REDIS_URL at a running Redis.\n',
    );
    process.exit(1);
  }
  localRedis = await startRedisServer(Number(redisUrl.port || 6379), path.join(config.dataDir, 'redis'));
  config = { ...config, redisUrl: localRedis.url };
  logger.info({ url: localRedis.url }, 'started a local redis-server');
}

const database = config.databaseUrl ? connectPostgres(config.databaseUrl) : await openPglite(path.join(config.dataDir, 'db'));
await database.migrate();
const stopEmbedded = database.driver === 'pglite' ? await serveEmbeddedDatabase(database, config.dataDir) : undefined;

const container = await createContainer(config, { database, logger });
const web = await startWebServer(container, config.port);
const workers = await startWorkers(container, QUEUE_NAMES, handlers);
// The moderation service runs beside it as a child process: inference must not block this event loop.
const vision = spawn(process.execPath, ['--import', 'tsx', 'api/moderation/main.ts'], {
  env: { ...process.env, REDIS_URL: config.redisUrl },
  stdio: ['ignore', 'ignore', 'inherit'],
});
// Judging is queued background work: when the machine is busy, uploads and serving go first and the
// checks catch up afterwards (a real image costs the model ~70 ms of CPU, an upload ~2 ms).
if (vision.pid) setPriority(vision.pid, VISION_NICENESS);

process.stdout.write(
  [
    '',
    `  Hosted File Service is running (${database.driver}, ${config.storage.driver} storage)`,
    `  API       ${config.baseUrl}/api`,
    `  Site      ${config.siteUrl}`,
    `  Vision    ${config.visionUrl}`,
    `  Data      ${config.dataDir}`,
    '  Create an account: npm run admin -- user create --username alice --password <password>',
    '  Ctrl-C stops everything.',
    '',
  ].join('\n') + '\n',
);

onShutdown(logger, async () => {
  const visionExited = new Promise((resolve) => (vision.exitCode === null ? vision.once('exit', resolve) : resolve(null)));
  vision.kill('SIGTERM');
  await web.close();
  await workers.close();
  await stopEmbedded?.();
  await container.close();
  await visionExited;
  await localRedis?.stop();
});
