import type { Server } from 'node:http';
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Container } from '../shared/container.js';
import { createRedis } from '../shared/redis.js';
import { NotificationHub } from '../shared/services/notifications/notification-hub.js';
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
  const hub = new NotificationHub(subscriber, container.services.notifications.channel, container.logger);
  // Not awaited: while Redis is down the subscriptions wait on their connection (the file cache stays
  // off meanwhile) and the process serves what needs no Redis. Closing leaves those still waiting:
  // ioredis settles nothing on a connection closed between two reconnect attempts.
  const unsubscribers: (() => void)[] = [];
  void Promise.all([
    container.services.cachePurges.subscribe(subscriber).then((stop) => unsubscribers.push(stop)),
    container.services.domainDirectory.subscribe(subscriber).then((stop) => unsubscribers.push(stop)),
    hub.start(),
  ]).catch(() => undefined);
  const { handle, close: closeApp } = await createApp(container, hub, subscriber);
  const server = createServer(handle);
  // Custom domains over TLS: each name's certificate by SNI; a name without one gets no certificate at all.
  const tlsServer = container.config.httpsPort === undefined
    ? undefined
    : createTlsServer(
        {
          SNICallback: (servername, callback) => {
            container.services.domainDirectory.secureContext(servername).then(
              (context) => callback(context ? null : new Error(`no certificate for ${servername}`), context),
              (err: Error) => callback(err),
            );
          },
        },
        handle,
      );
  for (const listener of [server, tlsServer]) {
    if (!listener) continue;
    listener.requestTimeout = REQUEST_TIMEOUT_MS;
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(listener === server ? port : container.config.httpsPort, host, () => resolve());
    });
  }
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return {
    server,
    hub,
    url: `http://127.0.0.1:${actualPort}`,
    async close(deadline) {
      const listeners = [server, ...(tlsServer ? [tlsServer] : [])];
      const closed = Promise.all(listeners.map((l) => new Promise<void>((resolve) => l.close(() => resolve()))));
      const cutOff = () => listeners.forEach((l) => l.closeAllConnections());
      deadline?.addEventListener('abort', cutOff);
      if (deadline?.aborted) cutOff();
      // Event streams never end by themselves: the hub ends them. Connections whose last response
      // just finished are idle then; close them rather than wait out keep-alive.
      for (const unsubscribe of unsubscribers) unsubscribe();
      await hub.stop();
      const sweep = setInterval(() => listeners.forEach((l) => l.closeIdleConnections()), 50);
      await closed;
      await closeApp();
      clearInterval(sweep);
      deadline?.removeEventListener('abort', cutOff);
    },
  };
}
