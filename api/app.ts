import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import type { Container } from '../shared/container.js';
import { AppError } from '../shared/errors.js';
import type { NotificationHub } from '../shared/services/notification-hub.js';
import { errorHandler, notFound } from './middleware/error.middleware.js';
import { requireRedisForChanges } from './middleware/redis-gate.middleware.js';
import { requestContext } from './middleware/request-context.middleware.js';
import { apiRouter } from './routes/index.js';
import { metricsRoutes } from './routes/metrics.routes.js';
import { pagesRoutes } from './site/pages.routes.js';
import { hostRouting, siteRoutes } from './site/site.routes.js';
import type { AppState } from './state.js';
import { WebMetrics } from './web-metrics.js';

/** Builds the web app without listening, so tests drive the very same app through a real server. */
export function createApp(container: Container, hub: NotificationHub) {
  const app = new Koa<AppState>();
  app.proxy = container.config.trustProxy;
  // Errors are rendered by errorHandler; this only silences Koa's default stderr printing.
  app.silent = true;

  const api = apiRouter(container, hub);
  const site = siteRoutes(container);
  const pages = pagesRoutes(container);
  const metrics = new WebMetrics(container.jobs, container.health);
  app.use(requestContext(container.logger, metrics));
  app.use(errorHandler(container.logger, container.health));
  app.use(hostRouting(container));
  app.use(metricsRoutes(metrics, container.config.metricsToken).routes());
  app.use(site.routes());
  app.use(requireRedisForChanges(container.redis));
  app.use(
    bodyParser({
      enableTypes: ['json'],
      jsonLimit: '1mb',
      onError: (err) => {
        throw (err as { status?: number }).status === 413
          ? AppError.tooLarge('JSON body is larger than 1 MB')
          : AppError.badRequest('Malformed JSON body');
      },
    }),
  );
  app.use(api.routes());
  app.use(pages.routes());
  app.use(notFound);
  return app;
}
