import { AppError } from '../../shared/errors.js';
import type { AppContext } from '../state.js';

/**
 * Refuses a form post another site made the browser send: its Origin, when the browser gives one,
 * must be the origin the request came to (`ctx.origin` is not that: in Koa 3 it is the Origin
 * header itself) or one of `also` (the site's and the API's, which may differ).
 */
export function refuseCrossSite(ctx: AppContext, also: readonly string[] = []): void {
  const origin = ctx.get('origin');
  if (origin && origin !== `${ctx.protocol}://${ctx.host}` && !also.includes(origin)) throw AppError.forbidden('Cross-site request refused');
}
