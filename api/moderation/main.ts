import { checkPort, loadConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { exitOnUncaughtErrors, onShutdown } from '../../shared/shutdown.js';
import { startVisionServer } from './server.js';

// The `vision` process: the moderation service at VISION_URL, its own process so model inference
// never blocks the web event loop.
const config = loadConfig();
const logger = createLogger(config.logLevel, 'hfs-vision');
exitOnUncaughtErrors(logger, 'vision');
// Before the model loads (seconds), so a taken port is reported at once.
await checkPort(config.visionPort, 'VISION_PORT');
const vision = await startVisionServer(config, logger, config.visionPort);
logger.info({ port: config.visionPort, device: vision.model.device }, 'vision listening');
process.stdout.write(`vision ready on ${config.visionPort}\n`);
onShutdown(logger, config.shutdownTimeoutMs, (deadline) => vision.close(deadline));
