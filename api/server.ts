import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { Container } from '../shared/container.js';
import { createRedis } from '../shared/redis.js';
import { NotificationHub } from '../shared/services/notification-hub.js';
import { createApp } from './app.js';

// Large uploads on slow links legitimately take long; Node's 300 s default would cut them off.
const REQUEST_TIMEOUT_MS = 60 * 60 * 1000;

export interface WebServer {
  server: Server;
  hub: NotificationHub;
  url: string;
  /** Stops accepting and waits for requests in flight; when `deadline` aborts, cuts off what is left. */
  close(deadline?: AbortSignal): Promise<void>;
}

/** Listens with the web app. */
export async function startWebServer(container: Container, port: number, host = '0.0.0.0'): Promise<WebServer> {
  // One subscriber connection per web process: cache purges from any process reach this process's
  // file cache, and notifications from any process reach the streams open here.
  const subscriber = createRedis(container.config.redisUrl, 'subscriber', container.health.redis);
  const stopPurges = await container.services.cachePurges.subscribe(subscriber);
  const hub = new NotificationHub(subscriber, container.services.notifications.channel, container.logger);
  await hub.start();
  const { handle, close: closeApp } = await createApp(container, hub);
  const server = createServer(handle);
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return {
    server,
    hub,
    url: `http://127.0.0.1:${actualPort}`,
    async close(deadline) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const cutOff = () => server.closeAllConnections();
      deadline?.addEventListener('abort', cutOff);
      if (deadline?.aborted) cutOff();
      // Event streams never end by themselves: the hub ends them. Connections whose last response
      // just finished are idle then; close them rather than wait out keep-alive.
      stopPurges();
      await hub.stop();
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      await closed;
      await closeApp();
      clearInterval(sweep);
      deadline?.removeEventListener('abort', cutOff);
    },
  };
}
