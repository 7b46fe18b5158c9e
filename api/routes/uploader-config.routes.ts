import { Router } from '@koa/router';
import contentDisposition from 'content-disposition';
import { uploaderConfigSchema } from '../../shared/services/uploads/uploader-config.service.js';
import { validate } from '../../shared/validation.js';
import { type AppState, principalOf } from '../state.js';
import type { RouteDeps } from './route-deps.js';

/** Downloadable configs for ShareX, Flameshot and curl with one of the account's keys filled in. */
export function uploaderConfigRoutes({ services }: RouteDeps) {
  const router = new Router<AppState>();

  router.get('/uploader-config', async (ctx) => {
    const file = await services.uploaderConfigs.build(principalOf(ctx), validate(uploaderConfigSchema, ctx.query));
    // The file holds a key: no cache may keep it.
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Disposition', contentDisposition(file.filename));
    ctx.type = file.contentType;
    ctx.body = file.body;
  });

  return router;
}
