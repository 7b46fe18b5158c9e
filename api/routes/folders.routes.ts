import { Router } from '@koa/router';
import { z } from 'zod';
import { validate } from '../../shared/validation.js';
import { needs } from '../middleware/auth.middleware.js';
import { type AppState, principalOf } from '../state.js';
import type { RouteDeps } from './route-deps.js';

export const newFolderSchema = z.object({
  name: z
    .string({ error: 'name is required' })
    .trim()
    .min(1, 'name must not be empty')
    .max(40, 'name must be at most 40 characters')
    .refine((name) => !/[\u0000-\u001f\u007f]/.test(name), 'name must not contain control characters'),
});
export const defaultFolderSchema = z.object({
  folderId: z.uuid({ error: 'folderId must be a folder id or null' }).nullable(),
});

/** Folders, the default upload folder, folder keys (Pro) and sharing a folder as an album. */
export function foldersRoutes({ services }: RouteDeps) {
  const router = new Router<AppState>();

  router.get('/folders', needs('folders:read'), async (ctx) => {
    ctx.body = { success: true, data: await services.folders.list(principalOf(ctx)) };
  });

  router.post('/folders', needs('folders:write'), async (ctx) => {
    const { name } = validate(newFolderSchema, ctx.request.body ?? {});
    ctx.body = { success: true, data: await services.folders.create(principalOf(ctx), name) };
  });

  router.delete('/folders/:id', needs('folders:write'), async (ctx) => {
    await services.folders.delete(principalOf(ctx), ctx.params.id!);
    ctx.body = { success: true, message: 'Folder deleted; its files moved to the root library' };
  });

  router.post('/default-folder', needs('folders:write'), async (ctx) => {
    const { folderId } = validate(defaultFolderSchema, ctx.request.body);
    ctx.body = { success: true, defaultUploadFolderId: await services.folders.setDefault(principalOf(ctx), folderId) };
  });

  router.get('/folder-keys', async (ctx) => {
    ctx.body = { success: true, data: await services.folderKeys.list(principalOf(ctx)) };
  });

  router.post('/folders/:id/key', async (ctx) => {
    ctx.body = { success: true, data: await services.folderKeys.issue(principalOf(ctx), ctx.params.id!) };
  });

  router.delete('/folders/:id/key', async (ctx) => {
    await services.folderKeys.revoke(principalOf(ctx), ctx.params.id!);
    ctx.body = { success: true, message: 'Folder key revoked' };
  });

  router.post('/folders/:id/share', needs('folders:write'), async (ctx) => {
    ctx.body = { success: true, data: await services.albums.share(principalOf(ctx), ctx.params.id!) };
  });

  router.delete('/folders/:id/share', needs('folders:write'), async (ctx) => {
    await services.albums.unshare(principalOf(ctx), ctx.params.id!);
    ctx.body = { success: true, message: 'Folder no longer shared; its album link is gone' };
  });

  return router;
}
