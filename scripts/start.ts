import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOOPBACK_HOSTS } from '../api/oauth/provider.js';
import { startWebServer } from '../api/server.js';
import { checkPort, loadConfig, StartupError, type Config } from '../shared/config.js';
import { createContainer } from '../shared/container.js';
import { connectPostgres, openPglite } from '../shared/db/client.js';
import { connectEmbeddedServer, serveEmbeddedDatabase } from '../shared/db/embedded-server.js';
import { createLogger } from '../shared/logger.js';
import { warnIfEndOfLifeNode } from '../shared/node-runtime.js';
import { startProcessCluster } from '../shared/process-cluster.js';
import { exitOnUncaughtErrors, onShutdown } from '../shared/shutdown.js';
import { QUEUE_NAMES } from '../shared/jobs.js';
import { handlers } from '../workers/handlers/index.js';
import { startWorkers } from '../workers/worker-pool.js';
import { hasRedisServer, redisAnswers, startRedisServer, type LocalRedis } from './lib/redis-server.js';

const VISION_NICENESS = 10;
// The moderation service beside this file: dist/api/moderation/main.js when this runs compiled,
// api/moderation/main.ts under tsx (npm run dev, tests).
const here = fileURLToPath(import.meta.url);
const visionMain = path.join(path.dirname(here), '..', 'api', 'moderation', `main${path.extname(here)}`);
const webMain = path.join(path.dirname(here), '..', 'api', `main${path.extname(here)}`);

// `npm start`: the whole service in one process on the embedded defaults (PGlite, local disk).
let config = loadConfig();
const logger = createLogger(config.logLevel);
exitOnUncaughtErrors(logger, 'start');
warnIfEndOfLifeNode(logger);
warnOfOtherVisionService(config);
// Checked before anything is started, so a clash leaves nothing running behind.
await checkPort(config.port, 'PORT');
await checkPort(config.visionPort, 'VISION_PORT');
if (!config.databaseUrl) {
  const running = await connectEmbeddedServer(config.dataDir);
  if (running) {
    await running.close();
    throw new StartupError(`Another npm start already runs on the embedded database in ${config.dataDir}: stop it, or set DATA_DIR to another directory`);
  }
}

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
  localRedis = await startRedisServer(Number(redisUrl.port || 6379), path.join(config.dataDir, 'redis'), { ownProcessGroup: true });
  config = { ...config, redisUrl: localRedis.url };
  logger.info({ url: localRedis.url }, 'started a local redis-server');
}

// One pool for the web and the workers here, so their statements share the web's bound (PGlite has none).
const database = config.databaseUrl ? connectPostgres(config.databaseUrl, undefined, config.statementTimeoutMs) : await openPglite(path.join(config.dataDir, 'db'));
await database.migrate();
const stopEmbedded = database.driver === 'pglite' ? await serveEmbeddedDatabase(database, config.dataDir) : undefined;

const container = await createContainer(config, { database, logger });
// WEB_CONCURRENCY > 1: that many web processes (node:cluster) share PORT and reach the embedded database
// through its socket, as the admin CLI does; the workers stay here.
const webCluster =
  config.webConcurrency > 1
    ? startProcessCluster({ size: config.webConcurrency, name: 'web', logger, exec: webMain, env: { REDIS_URL: config.redisUrl } })
    : undefined;
const web = webCluster ?? (await startWebServer(container, config.port));
const workers = await startWorkers(container, QUEUE_NAMES, handlers);
// The moderation service runs beside it as a child process: inference must not block this event loop.
const vision = spawn(process.execPath, [...(visionMain.endsWith('.ts') ? ['--import', 'tsx'] : []), visionMain], {
  env: { ...process.env, REDIS_URL: config.redisUrl },
  stdio: ['ignore', 'ignore', 'inherit'],
});
// Judging is queued background work: when the machine is busy, uploads and serving go first and the
// checks catch up afterwards (a real image costs the model ~70 ms of CPU, an upload ~2 ms).
if (vision.pid) setPriority(vision.pid, VISION_NICENESS);
await webCluster?.listening;

process.stdout.write(
  [
    '',
    `  Hosted File Service is running (${database.driver}, ${config.storage.driver} storage${webCluster ? `, ${config.webConcurrency} web processes` : ''})`,
    `  API       ${config.baseUrl}/api`,
    `  Site      ${config.siteUrl}`,
    `  Vision    ${config.visionUrl}`,
    `  Data      ${config.dataDir}`,
    '  Create an account: npm run -s admin -- user create --username alice --password <password>',
    '  Ctrl-C stops everything.',
    '',
  ].join('\n') + '\n',
);

onShutdown(logger, config.shutdownTimeoutMs, async (deadline) => {
  const visionExited = new Promise((resolve) => (vision.exitCode === null ? vision.once('exit', resolve) : resolve(null)));
  vision.kill('SIGTERM');
  // It drains with the same SHUTDOWN_TIMEOUT_MS; at this deadline a second signal stops it at once.
  deadline.addEventListener('abort', () => vision.kill('SIGTERM'));
  const [webDrained] = await Promise.all([web.close(deadline), workers.close(deadline)]);
  await stopEmbedded?.();
  await container.close();
  await visionExited;
  await localRedis?.stop();
  return webDrained !== false;
});

/**
 * A VISION_URL on this machine but not on VISION_PORT is most likely another instance's moderation
 * service: uploads would be judged there and /readyz would report it, not the child started here.
 */
function warnOfOtherVisionService({ visionUrl, visionPort }: Pick<Config, 'visionUrl' | 'visionPort'>) {
  const url = new URL(visionUrl);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (!LOOPBACK_HOSTS.has(url.hostname) || port === visionPort) return;
  logger.warn(
    { visionUrl, visionPort },
    `VISION_URL ${visionUrl} is not the moderation service started here on VISION_PORT ${visionPort}: uploads are judged by whatever answers at ${visionUrl}; unset VISION_URL to use this one`,
  );
}
