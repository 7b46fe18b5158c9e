import { createServer } from 'node:http';
import type { Config } from '../../shared/config.js';
import { createHealth } from '../../shared/dependency-health.js';
import type { Logger } from '../../shared/logger.js';
import { createRedis } from '../../shared/redis.js';
import { createVisionApp } from './app.js';
import { NsfwModel } from './model.js';
import { Moderator } from './moderator.js';
import { VisionJobs } from './vision-jobs.js';

const GIF_FRAMES = 8;
const VIDEO_FRAMES = 16;

export interface VisionServer {
  url: string;
  jobs: VisionJobs;
  model: NsfwModel;
  /** Stops accepting, waits for requests and jobs in flight; when `deadline` aborts, cuts off requests. */
  close(deadline?: AbortSignal): Promise<void>;
}

/** Loads the model, starts the job worker and listens; `close` drains jobs and stops. */
export async function startVisionServer(config: Config, logger: Logger, port: number, host = '0.0.0.0'): Promise<VisionServer> {
  const model = new NsfwModel({ threads: config.vision.threads, batchSize: config.vision.batchSize });
  await model.load();
  const moderator = new Moderator(model, { gifFrames: GIF_FRAMES, videoFrames: VIDEO_FRAMES });
  const health = createHealth(logger);
  const redis = createRedis(config.redisUrl, 'client', health.redis);
  // Redis down at start is no reason to exit: the connection retries, and the synchronous checks
  // (`POST /moderate-*`) need no Redis meanwhile; jobs start once it answers.
  await redis.connect().catch(() => undefined);
  const jobs = new VisionJobs(redis, { redisUrl: config.redisUrl, prefix: config.redisPrefix, concurrency: config.vision.maxConcurrentJobs, health: health.redis });
  jobs.start(moderator);
  const app = createVisionApp({ config, logger, health, model, moderator, jobs });
  const server = createServer(app.callback());
  server.requestTimeout = 30 * 60 * 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}`,
    jobs,
    model,
    async close(deadline) {
      const cutOff = () => server.closeAllConnections();
      deadline?.addEventListener('abort', cutOff);
      if (deadline?.aborted) cutOff();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      deadline?.removeEventListener('abort', cutOff);
      await jobs.close();
      await model.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
