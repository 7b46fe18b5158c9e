import cluster from 'node:cluster';
import { checkPort, loadConfig, StartupError } from '../shared/config.js';
import { createLogger } from '../shared/logger.js';
import { warnIfEndOfLifeNode } from '../shared/node-runtime.js';
import { reportReady, startProcessCluster } from '../shared/process-cluster.js';
import { exitOnUncaughtErrors, onShutdown } from '../shared/shutdown.js';

// The `web` process: API, MCP, OAuth and the site. Production runs several side by side; with
// WEB_CONCURRENCY > 1 this one only supervises that many children sharing PORT, each as below.
// A child's primary has checked the database setting (npm start's children reach its embedded one).
const config = loadConfig({ sharedDatabase: cluster.isPrimary });
const logger = createLogger(config.logLevel);
exitOnUncaughtErrors(logger, 'web');
if (cluster.isPrimary) {
  warnIfEndOfLifeNode(logger);
  if (config.webConcurrency > 1 && !config.databaseUrl) {
    throw new StartupError(`WEB_CONCURRENCY=${config.webConcurrency} needs DATABASE_URL: the embedded database serves one process (npm start runs several web processes on its own)`);
  }
  await checkPort(config.port, 'PORT');
}
if (cluster.isPrimary && config.webConcurrency > 1) {
  const children = startProcessCluster({ size: config.webConcurrency, name: 'web', logger });
  onShutdown(logger, config.shutdownTimeoutMs, (deadline) => children.close(deadline));
} else {
  // Loaded only here: a primary that supervises children holds none of the app (a hundred MB or so).
  const [{ createContainer }, { startWebServer }] = await Promise.all([import('../shared/container.js'), import('./server.js')]);
  const container = await createContainer(config, { logger, servesRequests: true });
  const web = await startWebServer(container, config.port);
  logger.info({ port: config.port, baseUrl: config.baseUrl }, 'web listening');
  reportReady();
  onShutdown(logger, config.shutdownTimeoutMs, async (deadline) => {
    await web.close(deadline);
    await container.close();
  });
}
