import { Router } from '@koa/router';
import { z } from 'zod';
import type { Container } from '../../shared/container.js';
import { validate } from '../../shared/validation.js';
import { accountOf, type AppState } from '../state.js';

const defaultFolderSchema = z.object({
  folderId: z.uuid({ error: 'folderId must be a folder id or null' }).nullable(),
});

/** Folders, the default upload folder, and folder keys (Pro). */
export function foldersRoutes({ services }: Container) {
  const router = new Router<AppState>();

  router.get('/folders', async (ctx) => {
    ctx.body = { success: true, data: await services.folders.list(accountOf(ctx)) };
  });

  router.post('/folders', async (ctx) => {
    const body = (ctx.request.body ?? {}) as { name?: unknown };
    ctx.body = { success: true, data: await services.folders.create(accountOf(ctx), body.name) };
  });

  router.delete('/folders/:id', async (ctx) => {
    await services.folders.delete(accountOf(ctx), ctx.params.id!);
    ctx.body = { success: true, message: 'Folder deleted; its files moved to the root library' };
  });

  router.post('/default-folder', async (ctx) => {
    const { folderId } = validate(defaultFolderSchema, ctx.request.body);
    ctx.body = { success: true, defaultUploadFolderId: await services.folders.setDefault(accountOf(ctx), folderId) };
  });

  router.get('/folder-keys', async (ctx) => {
    ctx.body = { success: true, data: await services.folderKeys.list(accountOf(ctx)) };
  });

  router.post('/folders/:id/key', async (ctx) => {
    ctx.body = { success: true, data: await services.folderKeys.issue(accountOf(ctx), ctx.params.id!) };
  });

  router.delete('/folders/:id/key', async (ctx) => {
    await services.folderKeys.revoke(accountOf(ctx), ctx.params.id!);
    ctx.body = { success: true, message: 'Folder key revoked' };
  });

  return router;
}
