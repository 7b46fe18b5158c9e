import { Router } from '@koa/router';
import type { Container } from '../../shared/container.js';
import { AppError } from '../../shared/errors.js';
import type { AppState } from '../state.js';

/**
 * GET /api/delete/:filename — a link that deletes: with the account key (`apiKey` query or
 * x-api-key header) or with the file's own deletion token (`token`), which names one file only.
 */
export function deleteRoutes({ services }: Container) {
  const router = new Router<AppState>();
  router.get('/delete/:filename', async (ctx) => {
    const filename = ctx.params.filename!;
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : undefined;
    const apiKey = (typeof ctx.query.apiKey === 'string' ? ctx.query.apiKey : undefined) ?? (ctx.get('x-api-key') || undefined);
    if (token) {
      await services.files.deleteWithToken(filename, token);
    } else if (apiKey) {
      const account = await services.accounts.findByApiKey(apiKey);
      if (!account) throw AppError.unauthorized('Invalid API key');
      await services.files.deleteOwned(account, filename);
    } else {
      throw AppError.unauthorized('An apiKey or token query parameter is required');
    }
    ctx.body = { success: true, message: 'File deleted' };
  });
  return router;
}
