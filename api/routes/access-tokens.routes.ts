import { Router } from '@koa/router';
import { createAccessTokenSchema } from '../../shared/contracts/access-token.contract.js';
import { validate } from '../../shared/validation.js';
import { type AppState, principalOf } from '../state.js';
import type { RouteDeps } from './route-deps.js';

/** Personal access tokens; the primary key's and the session's alone (no route here declares a scope). */
export function accessTokensRoutes({ services }: RouteDeps) {
  const router = new Router<AppState>({ prefix: '/tokens' });

  router.post('/', async (ctx) => {
    const input = validate(createAccessTokenSchema, ctx.request.body ?? {});
    ctx.body = { success: true, data: await services.accessTokens.create(principalOf(ctx), input) };
  });

  router.get('/', async (ctx) => {
    ctx.body = { success: true, data: await services.accessTokens.list(principalOf(ctx)) };
  });

  router.delete('/:id', async (ctx) => {
    await services.accessTokens.revoke(principalOf(ctx), ctx.params.id!);
    ctx.body = { success: true, message: 'Access token revoked' };
  });

  return router;
}
