import { checkPort, loadConfig } from '../shared/config.js';
import { createContainer } from '../shared/container.js';
import { createLogger } from '../shared/logger.js';
import { warnIfEndOfLifeNode } from '../shared/node-runtime.js';
import { exitOnUncaughtErrors, onShutdown } from '../shared/shutdown.js';
import { startWebServer } from './server.js';

// The `web` process: API, MCP, OAuth and the site. Production runs several side by side.
const config = loadConfig({ sharedDatabase: true });
const logger = createLogger(config.logLevel);
exitOnUncaughtErrors(logger, 'web');
warnIfEndOfLifeNode(logger);
await checkPort(config.port, 'PORT');
const container = await createContainer(config, { logger, servesRequests: true });
const web = await startWebServer(container, config.port);
logger.info({ port: config.port, baseUrl: config.baseUrl }, 'web listening');
onShutdown(logger, config.shutdownTimeoutMs, async (deadline) => {
  await web.close(deadline);
  await container.close();
});
