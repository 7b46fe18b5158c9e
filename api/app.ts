import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Redis } from 'ioredis';
import Koa from 'koa';
import type { Container } from '../shared/container.js';
import { SCOPE_NAMES } from '../shared/scopes.js';
import { mcpResourceOf } from '../shared/services/assistants/mcp-resource.js';
import type { NotificationHub } from '../shared/services/notifications/notification-hub.js';
import { parseBodies } from './middleware/body-parser.middleware.js';
import { errorHandler, notFound } from './middleware/error.middleware.js';
import { refuseUnstorableUrls } from './middleware/input-hygiene.middleware.js';
import { requireRedisForChanges } from './middleware/redis-gate.middleware.js';
import { RequestRecorder, requestContext } from './middleware/request-context.middleware.js';
import { McpAppResources } from './mcp/apps/app-resources.js';
import { mcpRoutes } from './mcp/mcp.routes.js';
import { AccessTokenVerifier } from './oauth/access-tokens.js';
import { interactionRoutes } from './oauth/interaction.routes.js';
import { oauthServer } from './oauth/oauth-server.js';
import { createOAuthProvider } from './oauth/provider.js';
import { healthRoutes } from './routes/health.routes.js';
import { apiRouter } from './routes/index.js';
import { tusUploads } from './tus/tus-uploads.js';
import { metricsRoutes } from './routes/metrics.routes.js';
import { albumPagesRoutes } from './site/album.routes.js';
import { AppBundle } from './site/app-bundle.js';
import { SitePages } from './site/pages/site-pages.js';
import { pagesRoutes } from './site/pages.routes.js';
import { dropRoutes } from './site/drop.routes.js';
import { FileHeaderCache } from './site/file-response.js';
import { hotFileResponder } from './site/hot-files.js';
import { hostedFiles } from './site/site.routes.js';
import { shareLinkRoutes } from './site/share.routes.js';
import { thumbnailRoutes } from './site/thumbnail.routes.js';
import type { AppState } from './state.js';
import { WebMetrics } from './web-metrics.js';

/**
 * Builds the web app without listening, so tests drive the very same app through a real server;
 * `handle` is what the server listens with (the hot-file fast path in front of the app).
 */
export async function createApp(container: Container, hub: NotificationHub, subscriber: Redis) {
  const { config, services, urls } = container;
  const bundle = new AppBundle();
  const sitePages = new SitePages(container, bundle);
  const provider = await createOAuthProvider({ config, store: services.authorizationStore, logger: container.logger, pages: sitePages });
  const tokens = new AccessTokenVerifier(provider, mcpResourceOf(config.baseUrl), services.connections);
  const mcp = mcpRoutes(tokens, config, {
    services,
    logger: container.logger,
    arrivals: hub,
    uploadMaxBytes: config.mcpUploadMaxBytes,
    apps: new McpAppResources(config),
  });
  const tus = tusUploads(container, subscriber);
  const app = new Koa<AppState>();
  app.proxy = container.config.trustProxy;
  // Errors are rendered by errorHandler; this only silences Koa's default stderr printing.
  app.silent = true;

  const api = apiRouter(container, hub);
  const pages = pagesRoutes(container, sitePages, bundle);
  const drops = dropRoutes(container, sitePages);
  const metrics = new WebMetrics(container.jobs, container.health, services.hosted.bodies);
  const recorder = new RequestRecorder(container.logger, metrics);
  const headers = new FileHeaderCache(container.config.cacheControlPublic);
  app.use(requestContext(recorder));
  app.use(errorHandler(container.logger, container.health, sitePages));
  app.use(refuseUnstorableUrls);
  app.use(hostedFiles(container, headers));
  app.use(metricsRoutes(metrics, container.config.metricsToken).routes());
  app.use(healthRoutes(services.readiness).routes());
  app.use(oauthServer(provider, { issuer: config.baseUrl, defaultScope: SCOPE_NAMES.join(' ') }, container.rateLimits));
  // Before the Redis gate and the JSON parser: tools answer for themselves, and bodies may be large.
  app.use(mcp.router.routes());
  app.use(requireRedisForChanges(container.redis));
  // Before the body parser: tus reads its own bodies.
  app.use(tus.middleware);
  // Forms: the consent page and the account page's buttons.
  app.use(parseBodies({ jsonLimit: 1024 * 1024, formLimit: 64 * 1024 }));
  app.use(api.routes());
  app.use(interactionRoutes(provider, container, sitePages).routes());
  app.use(pages.routes());
  app.use(albumPagesRoutes(container, sitePages).routes());
  app.use(thumbnailRoutes(container).routes());
  app.use(drops.routes());
  app.use(shareLinkRoutes(container, headers, sitePages).routes());
  app.use(notFound);

  const hot = hotFileResponder({ hosted: services.hosted, renditions: services.renditions, urls, headers, recorder, serving: config.serving, trustProxy: config.trustProxy });
  const callback = app.callback();
  /** The HTTP server's listener: hot files from memory, everything else through the app. */
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    let answered: boolean;
    try {
      answered = hot(req, res);
    } catch (err) {
      // Whatever the fast path could not do, the app answers in full (or, past the headers, gives up).
      container.logger.error({ err }, 'hot-file path failed');
      if (res.headersSent) return res.destroy();
      answered = false;
    }
    if (!answered) void callback(req, res);
  };
  return {
    app,
    handle,
    async close() {
      await mcp.close();
      await tus.close();
    },
  };
}
