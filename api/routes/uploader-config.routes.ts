import { Router } from '@koa/router';
import contentDisposition from 'content-disposition';
import { tokenConfigSchema, type UploaderConfigFile, uploaderConfigSchema } from '../../shared/services/uploads/uploader-config.service.js';
import { validate } from '../../shared/validation.js';
import { type AppContext, type AppState, principalOf } from '../state.js';
import type { RouteDeps } from './route-deps.js';

function download(ctx: AppContext, file: UploaderConfigFile) {
  // The file holds a key: no cache may keep it.
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Disposition', contentDisposition(file.filename));
  ctx.type = file.contentType;
  ctx.body = file.body;
}

/** Downloadable configs for ShareX, Flameshot and curl with one of the account's keys filled in. */
export function uploaderConfigRoutes({ services }: RouteDeps) {
  const router = new Router<AppState>();

  router.get('/uploader-config', async (ctx) => {
    download(ctx, await services.uploaderConfigs.build(principalOf(ctx), validate(uploaderConfigSchema, ctx.query)));
  });

  // POST, as it mints a token: an upload-only one, shown in this file only.
  router.post('/uploader-config', async (ctx) => {
    download(ctx, await services.uploaderConfigs.buildWithNewToken(principalOf(ctx), validate(tokenConfigSchema, ctx.request.body ?? {}).tool));
  });

  return router;
}
