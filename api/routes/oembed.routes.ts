import { Router } from '@koa/router';
import { z } from 'zod';
import { AppError } from '../../shared/errors.js';
import { validate } from '../../shared/validation.js';
import { embedTargetOf } from '../site/hosted-paths.js';
import type { AppState } from '../state.js';
import type { RouteDeps } from './route-deps.js';

export const oembedQuerySchema = z.object({
  url: z.url({ protocol: /^https?$/, error: 'url must be an absolute http(s) URL' }).max(4096).meta({ description: 'A hosted file (any URL style) or an album' }),
  format: z.string().max(16).default('json').meta({ description: '`json`; anything else (`xml`) answers 501' }),
  maxwidth: z.coerce.number().int().min(1).max(100_000).optional().meta({ description: 'No image in the answer is wider: a larger photo is answered by its preview rendition, else as a link; a larger thumbnail is left out' }),
  maxheight: z.coerce.number().int().min(1).max(100_000).optional().meta({ description: 'As maxwidth, for the height' }),
});

/** oEmbed 1.0 for pasted links (chat apps, editors): no key, the same visibility as the link itself. */
export function oembedRoutes({ services, urls }: RouteDeps) {
  const router = new Router<AppState>();

  router.get('/oembed', async (ctx) => {
    const query = validate(oembedQuerySchema, ctx.query);
    if (query.format !== 'json') throw new AppError(501, 'not_implemented', 'Only format=json is offered', {}, { expose: true });
    const target = await embedTargetOf(urls, services.domainDirectory, new URL(query.url));
    if (!target) throw AppError.notFound('Nothing embeddable at this URL');
    ctx.body = await services.embeds.oembed(target, { width: query.maxwidth, height: query.maxheight });
    // Privacy changes and unsharing must end embeds at once.
    ctx.set('Cache-Control', 'no-store');
  });

  return router;
}
