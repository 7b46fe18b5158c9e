import { loadConfig } from '../shared/config.js';
import { createContainer } from '../shared/container.js';
import { setStreamingHeapGrowth } from '../shared/heap-growth.js';
import { onShutdown } from '../shared/shutdown.js';
import { startWebServer } from './server.js';

setStreamingHeapGrowth();
const config = loadConfig();
const container = await createContainer(config);
const web = await startWebServer(container, config.port);
container.logger.info({ port: config.port, baseUrl: config.baseUrl }, 'web listening');
onShutdown(container.logger, async () => {
  await web.close();
  await container.close();
});
