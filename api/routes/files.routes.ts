import { Router } from '@koa/router';
import type { DashboardQuery } from '../../shared/services/files/dashboard.service.js';
import { renditionRequestOf } from '../../shared/services/media/renditions/rendition-params.js';
import { validate } from '../../shared/validation.js';
import { needs } from '../middleware/auth.middleware.js';
import { type AppState, principalOf } from '../state.js';
import { receiveSingleFile } from '../upload/receive-file.js';
import { batchMoveSchema, dashboardQuerySchema, moveSchema, privacySchema, renameSchema } from './files.schemas.js';
import type { RouteDeps } from './route-deps.js';

/** The account's files: dashboard listing, delete, rename, replace, move. */
export function filesRoutes({ services }: RouteDeps) {
  const router = new Router<AppState>();

  router.get('/dashboard', needs('files:read'), async (ctx) => {
    const query: DashboardQuery = validate(dashboardQuerySchema, ctx.query);
    ctx.body = { success: true, data: await services.dashboard.get(principalOf(ctx), query) };
  });

  router.patch('/images/move', needs('files:write'), async (ctx) => {
    const { filenames, folderId } = validate(batchMoveSchema, ctx.request.body);
    const { moved, errors } = await services.files.moveMany(principalOf(ctx), filenames, folderId);
    ctx.body = { success: true, moved, errors, message: `Moved ${moved.length} of ${filenames.length} files` };
  });

  router.delete('/images/:filename', needs('files:delete'), async (ctx) => {
    await services.files.deleteOwned(principalOf(ctx), ctx.params.filename!);
    ctx.body = { success: true, message: 'File deleted' };
  });

  router.put('/images/:filename/rename', needs('files:write'), async (ctx) => {
    const { newFilename } = validate(renameSchema, ctx.request.body ?? {});
    const result = await services.files.rename(principalOf(ctx), ctx.params.filename!, newFilename);
    ctx.body = { success: true, message: 'File renamed', ...result };
  });

  router.patch('/images/:filename/replace', needs('files:write'), async (ctx) => {
    const account = principalOf(ctx);
    // Fail before reading the body when there is nothing to replace.
    await services.files.assertReplaceable(account, ctx.params.filename!);
    await services.uploads.admit(services.uploadAuth.uploaderFor(account, null), { via: 'replace' });
    const { file } = await receiveSingleFile(ctx, services.uploads, services.uploads.receiveOptionsFor(account));
    const data = await services.files.replace(account, ctx.params.filename!, file.received, file.originalname);
    ctx.body = { success: true, message: 'File replaced', data };
  });

  router.get('/images/:filename/link', needs('files:read'), async (ctx) => {
    const link = await services.files.link(principalOf(ctx), ctx.params.filename!, renditionRequestOf(ctx.query));
    ctx.body = { success: true, ...link };
  });

  router.patch('/images/:filename/privacy', needs('files:write'), async (ctx) => {
    const { isPrivate } = validate(privacySchema, ctx.request.body);
    ctx.body = { success: true, data: await services.files.setPrivacy(principalOf(ctx), ctx.params.filename!, isPrivate) };
  });

  router.patch('/images/:filename/move', needs('files:write'), async (ctx) => {
    const { folderId } = validate(moveSchema, ctx.request.body ?? {});
    await services.files.move(principalOf(ctx), ctx.params.filename!, folderId);
    ctx.body = { success: true, message: folderId ? 'File moved' : 'File moved to the root library' };
  });

  return router;
}
