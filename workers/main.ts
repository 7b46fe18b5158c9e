import { loadConfig } from '../shared/config.js';
import { createContainer } from '../shared/container.js';
import { isQueueName, QUEUE_NAMES } from '../shared/jobs.js';
import { createLogger } from '../shared/logger.js';
import { warnIfEndOfLifeNode } from '../shared/node-runtime.js';
import { exitOnUncaughtErrors, onShutdown } from '../shared/shutdown.js';
import { handlers } from './handlers/index.js';
import { startWorkers } from './worker-pool.js';

// `worker` runs every queue; `worker url-fetch expiry` only those, so operators can scale each.
const requested = process.argv.slice(2);
const unknown = requested.filter((q) => !isQueueName(q));
if (unknown.length > 0) {
  process.stderr.write(`Unknown queue(s): ${unknown.join(', ')}. Known: ${QUEUE_NAMES.join(', ')}\n`);
  process.exit(1);
}
const queues = requested.length > 0 ? requested.filter(isQueueName) : [...QUEUE_NAMES];

const config = loadConfig({ sharedDatabase: true });
const logger = createLogger(config.logLevel);
exitOnUncaughtErrors(logger, 'worker');
warnIfEndOfLifeNode(logger);
const container = await createContainer(config, { logger });
const pool = await startWorkers(container, queues, handlers);
onShutdown(logger, config.shutdownTimeoutMs, async (deadline) => {
  await pool.close(deadline);
  await container.close();
});
