import { Router } from '@koa/router';
import { type AppState, principalOf } from '../state.js';
import type { RouteDeps } from './route-deps.js';

/** The assistants (OAuth clients) connected to the account, each revocable on its own. */
export function connectionsRoutes({ services }: RouteDeps) {
  const router = new Router<AppState>({ prefix: '/connections' });

  router.get('/', async (ctx) => {
    ctx.body = { success: true, data: { connections: await services.connections.list(principalOf(ctx)) } };
  });

  // A metadata-document client's id is a URL: it arrives percent-encoded in the path.
  router.delete('/:clientId', async (ctx) => {
    await services.connections.disconnect(principalOf(ctx), ctx.params.clientId!);
    ctx.body = { success: true, message: 'Disconnected' };
  });

  return router;
}
