import { Router } from '@koa/router';
import { z } from 'zod';
import type { Container } from '../../shared/container.js';
import { validate } from '../../shared/validation.js';
import { countsAsUpload } from '../middleware/upload-load.middleware.js';
import { accountOf, type AppState } from '../state.js';
import { receiveSingleFile } from '../upload/receive-file.js';

const folderIdSchema = z
  .uuid({ error: 'folderId must be a folder id or null' })
  .nullable()
  .optional()
  .transform((v) => v ?? null);
const moveSchema = z.object({ folderId: folderIdSchema });
const privacySchema = z.object({ isPrivate: z.boolean({ error: 'isPrivate must be true or false' }) });
const batchMoveSchema = z.object({
  filenames: z.array(z.string().min(1), { error: 'filenames must be a non-empty array of filenames' }).min(1, 'filenames must not be empty').max(1000),
  folderId: folderIdSchema,
});

/** The account's files: dashboard listing, delete, rename, replace, move. */
export function filesRoutes({ services, uploadLoad }: Container) {
  const router = new Router<AppState>();

  router.get('/dashboard', async (ctx) => {
    ctx.body = { success: true, data: await services.dashboard.get(accountOf(ctx), ctx.query) };
  });

  router.patch('/images/move', async (ctx) => {
    const { filenames, folderId } = validate(batchMoveSchema, ctx.request.body);
    const { moved, errors } = await services.files.moveMany(accountOf(ctx), filenames, folderId);
    ctx.body = { success: true, moved, errors, message: `Moved ${moved.length} of ${filenames.length} files` };
  });

  router.delete('/images/:filename', async (ctx) => {
    await services.files.deleteOwned(accountOf(ctx), ctx.params.filename!);
    ctx.body = { success: true, message: 'File deleted' };
  });

  router.put('/images/:filename/rename', async (ctx) => {
    const body = (ctx.request.body ?? {}) as { newFilename?: unknown };
    const result = await services.files.rename(accountOf(ctx), ctx.params.filename!, body.newFilename);
    ctx.body = { success: true, message: 'File renamed', ...result };
  });

  router.patch('/images/:filename/replace', countsAsUpload(uploadLoad), async (ctx) => {
    const account = accountOf(ctx);
    // Fail before reading the body when there is nothing to replace.
    await services.files.assertReplaceable(account, ctx.params.filename!);
    const { file } = await receiveSingleFile(ctx, services.uploads, services.uploads.maxBytesFor(account));
    const data = await services.files.replace(account, ctx.params.filename!, file.received, file.originalname);
    ctx.body = { success: true, message: 'File replaced', data };
  });

  router.patch('/images/:filename/privacy', async (ctx) => {
    const { isPrivate } = validate(privacySchema, ctx.request.body);
    ctx.body = { success: true, data: await services.files.setPrivacy(accountOf(ctx), ctx.params.filename!, isPrivate) };
  });

  router.patch('/images/:filename/move', async (ctx) => {
    const { folderId } = validate(moveSchema, ctx.request.body ?? {});
    await services.files.move(accountOf(ctx), ctx.params.filename!, folderId);
    ctx.body = { success: true, message: folderId ? 'File moved' : 'File moved to the root library' };
  });

  return router;
}
