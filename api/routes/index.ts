import { Router } from '@koa/router';
import type { NotificationHub } from '../../shared/services/notifications/notification-hub.js';
import { requireAccount } from '../middleware/auth.middleware.js';
import { openApiRoutes } from '../openapi/openapi.routes.js';
import type { AppState } from '../state.js';
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

/** Every REST route module, mounted under /api in one place. */
export function apiRouter(container: RouteDeps, hub: NotificationHub) {
  const api = new Router<AppState>({ prefix: '/api' });
  for (const module of [pingRoutes(), authRoutes(container), uploadRoutes(container), deleteRoutes(container), albumRoutes(container), oembedRoutes(container), openApiRoutes(container.config.baseUrl)]) {
    api.use(module.routes());
  }
  // Everything under /api/user is the account's own, behind its primary key or session (checked once).
  const user = new Router<AppState>({ prefix: '/user' });
  user.use(requireAccount(container.services.accounts, container.services.sessions, container.services.siteSessions));
  for (const module of [accountRoutes(container), filesRoutes(container), foldersRoutes(container), notificationsRoutes(container, hub), dropLinksRoutes(container, hub), shareLinksRoutes(container), connectionsRoutes(container), customDomainRoutes(container), uploaderConfigRoutes(container)]) {
    user.use(module.routes());
  }
  api.use(user.routes());
  return api;
}
