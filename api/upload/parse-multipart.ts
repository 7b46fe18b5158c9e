import type { Middleware } from 'koa';
import { MulterError } from 'multer';
import { AppError, isAppError } from '../../shared/errors.js';
import type { AppContext } from '../state.js';
import { isMalformedBody } from './body-errors.js';

const MULTER_LIMITS: Record<string, [number, string]> = {
  LIMIT_FILE_SIZE: [413, 'File is larger than the plan limit'],
  LIMIT_FILE_COUNT: [400, 'Only one file may be uploaded per request'],
  LIMIT_UNEXPECTED_FILE: [400, 'The file must be sent in the field "file" or "image", one file per request'],
  LIMIT_PART_COUNT: [400, 'Too many parts in the multipart body'],
  LIMIT_FIELD_KEY: [400, 'A form field name is too long'],
  LIMIT_FIELD_VALUE: [400, 'A form field value is too long'],
  LIMIT_FIELD_COUNT: [400, 'Too many form fields'],
};

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
    if (isAppError(err)) throw err;
    if (err instanceof MulterError) {
      const [status, message] = MULTER_LIMITS[err.code] ?? [400, err.message];
      throw new AppError(status, err.code.toLowerCase(), message);
    }
    if (isMalformedBody(err)) throw AppError.badRequest('The multipart body is malformed or cut short');
    throw onFailure();
  }
}
