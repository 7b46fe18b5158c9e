import { Router } from '@koa/router';
import { z } from 'zod';
import { AppError } from '../../shared/errors.js';
import { assertScope } from '../../shared/services/accounts/credential.service.js';
import { validate } from '../../shared/validation.js';
import type { AppState } from '../state.js';
import type { RouteDeps } from './route-deps.js';

// A parameter given twice names no single credential: it counts as absent.
const credential = z.string().optional().catch(undefined);
export const deleteQuerySchema = z.object({ token: credential, apiKey: credential });

/**
 * GET /api/delete/:filename — a link that deletes: with the account key or an access token holding
 * files:delete (`apiKey` query or x-api-key header), or with the file's own deletion token (`token`), which names one file only.
 */
export function deleteRoutes({ services }: RouteDeps) {
  const router = new Router<AppState>();
  router.get('/delete/:filename', async (ctx) => {
    const filename = ctx.params.filename!;
    const query = validate(deleteQuerySchema, ctx.query);
    const apiKey = query.apiKey ?? (ctx.get('x-api-key') || undefined);
    if (query.token) {
      await services.files.deleteWithToken(filename, query.token);
    } else if (apiKey) {
      const credential = await services.credentials.byKey(apiKey);
      if (!credential) throw AppError.unauthorized('Invalid API key');
      assertScope(credential, 'files:delete');
      await services.files.deleteOwned(credential.principal, filename);
    } else {
      throw AppError.unauthorized('An apiKey or token query parameter is required');
    }
    ctx.body = { success: true, message: 'File deleted' };
  });
  return router;
}
