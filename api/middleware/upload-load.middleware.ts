import type { Middleware } from 'koa';
import type { UploadLoad } from '../../shared/upload-load.js';
import type { AppState } from '../state.js';

/** Counts the request as an upload in flight until it is answered or fails (see UploadLoad). */
export function countsAsUpload(load: UploadLoad): Middleware<AppState> {
  return async (_ctx, next) => {
    const leave = load.enter();
    try {
      await next();
    } finally {
      leave();
    }
  };
}
