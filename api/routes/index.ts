import { Router } from '@koa/router';
import type { NotificationHub } from '../../shared/services/notifications/notification-hub.js';
import { requireAccount } from '../middleware/auth.middleware.js';
import { openApiRoutes } from '../openapi/openapi.routes.js';
import type { AppState } from '../state.js';
import { accessTokensRoutes } from './access-tokens.routes.js';
import { accountRoutes } from './account.routes.js';
import { albumRoutes } from './album.routes.js';
import { authRoutes } from './auth.routes.js';
import { connectionsRoutes } from './connections.routes.js';
import { customDomainRoutes } from './custom-domain.routes.js';
import { deleteRoutes } from './delete.routes.js';
import { dropLinksRoutes } from './drop-links.routes.js';
import { filesRoutes } from './files.routes.js';
import { foldersRoutes } from './folders.routes.js';
import { notificationsRoutes } from './notifications.routes.js';
import { oembedRoutes } from './oembed.routes.js';
import { pingRoutes } from './ping.routes.js';
import type { RouteDeps } from './route-deps.js';
import { shareLinksRoutes } from './share-links.routes.js';
import { uploadRoutes } from './upload.routes.js';
import { uploaderConfigRoutes } from './uploader-config.routes.js';
import { webhooksRoutes } from './webhooks.routes.js';

/** Every REST route module, mounted under /api in one place. */
export function apiRouter(container: RouteDeps, hub: NotificationHub) {
  const api = new Router<AppState>({ prefix: '/api' });
  for (const module of [pingRoutes(), authRoutes(container), uploadRoutes(container), deleteRoutes(container), albumRoutes(container), oembedRoutes(container), openApiRoutes(container.config.baseUrl)]) {
    api.use(module.routes());
  }
  // Everything under /api/user is the account's own, behind its primary key, a session or an access
  // token (checked once); a token passes only the routes that declare the scope it holds.
  const user = new Router<AppState>({ prefix: '/user' });
  user.use(requireAccount(container.services));
  for (const module of [accountRoutes(container), accessTokensRoutes(container), filesRoutes(container), foldersRoutes(container), notificationsRoutes(container, hub), dropLinksRoutes(container, hub), shareLinksRoutes(container), connectionsRoutes(container), customDomainRoutes(container), uploaderConfigRoutes(container), webhooksRoutes(container)]) {
    user.use(module.routes());
  }
  api.use(user.routes());
  return api;
}
