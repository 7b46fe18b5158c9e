import type { Middleware } from 'koa';
import { MulterError } from 'multer';
import { isMalformedBody } from '../../shared/body-errors.js';
import { AppError, isAppError } from '../../shared/errors.js';
import type { AppContext } from '../state.js';

/**
 * Runs a multer middleware over the request. Storage engines report their failures as AppErrors and
 * multer its limits as MulterErrors; a broken or cut-short body is the client's mistake (400). What
 * is left is a failure on our side that reached multer raw (a stream destroyed by its failing
 * destination): `onFailure` says what it means for this caller.
 */
export async function parseMultipart(ctx: AppContext, middleware: Middleware, onFailure: () => AppError): Promise<void> {
  try {
    await middleware(ctx, async () => undefined);
  } catch (err) {
    if (isAppError(err) || err instanceof MulterError) throw err;
    if (isMalformedBody(err)) throw AppError.badRequest('The multipart body is malformed or cut short');
    throw onFailure();
  }
}
