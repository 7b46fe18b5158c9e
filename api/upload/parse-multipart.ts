import type { Middleware } from 'koa';
import { MulterError } from 'multer';
import { AppError, isAppError } from '../../shared/errors.js';
import type { AppContext } from '../state.js';

/**
 * Runs a multer middleware over the request. Storage engines report their failures as AppErrors and
 * multer its limits as MulterErrors; anything else is busboy failing to parse the body (no boundary,
 * a bad part header, a body cut short), which is the client's mistake: 400, never 500.
 */
export async function parseMultipart(ctx: AppContext, middleware: Middleware): Promise<void> {
  try {
    await middleware(ctx, async () => undefined);
  } catch (err) {
    if (isAppError(err) || err instanceof MulterError) throw err;
    throw AppError.badRequest('The multipart body is malformed');
  }
}
