import type { Middleware } from 'koa';
import multer from 'multer';
import { AppError, isAppError } from '../../shared/errors.js';
import { isUnstorableText } from '../../shared/repositories/pg-errors.js';
import type { Logger } from '../../shared/logger.js';
import type { AppState } from '../state.js';

const MULTER_STATUS: Record<string, [number, string]> = {
  LIMIT_FILE_SIZE: [413, 'File is larger than the plan limit'],
  LIMIT_FILE_COUNT: [400, 'Only one file may be uploaded per request'],
  LIMIT_UNEXPECTED_FILE: [400, 'The file must be sent in the field "file" or "image", one file per request'],
  LIMIT_PART_COUNT: [400, 'Too many parts in the multipart body'],
  LIMIT_FIELD_KEY: [400, 'A form field name is too long'],
  LIMIT_FIELD_VALUE: [400, 'A form field value is too long'],
  LIMIT_FIELD_COUNT: [400, 'Too many form fields'],
};

/** Maps whatever was thrown to the one error body, `{success: false, error}`. */
function toAppError(err: unknown): AppError | undefined {
  if (isAppError(err)) return err;
  if (err instanceof multer.MulterError) {
    const [status, message] = MULTER_STATUS[err.code] ?? [400, err.message];
    return new AppError(status, err.code.toLowerCase(), message);
  }
  if (isUnstorableText(err)) return AppError.badRequest('Text must not contain NUL characters');
  // http-errors thrown by Koa itself (ctx.throw, ctx.assert)
  const e = err as { status?: number; expose?: boolean; message?: string };
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    return new AppError(e.status, 'http_error', e.expose && e.message ? e.message : 'Bad request');
  }
  return undefined;
}

export function errorHandler(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const known = toAppError(err);
      if (known?.expose) {
        ctx.status = known.status;
        ctx.body = { success: false, error: known.message, ...known.extra };
        const retryAfter = known.extra.retryAfter;
        if (typeof retryAfter === 'number') ctx.set('Retry-After', String(retryAfter));
        return;
      }
      // Unknown failures are logged in full and answered without any internals.
      logger.error({ err, reqId: ctx.state.requestId }, 'unhandled error');
      ctx.status = known?.status ?? 500;
      ctx.body = {
        success: false,
        error: known?.message ?? 'Internal server error',
        requestId: ctx.state.requestId,
      };
    }
  };
}

/** Last in the chain: nothing matched the request. */
export const notFound: Middleware<AppState> = () => {
  throw AppError.notFound('Route not found');
};
