import type { Router } from '@koa/router';
import type { AppState } from '../state.js';

/** Serves one of the pages' small assets from memory (or made once on demand); browsers may keep it five minutes. */
export function staticAsset(router: Router<AppState>, path: string, type: string, body: string | (() => Promise<Buffer>)): void {
  router.get(path, async (ctx) => {
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = typeof body === 'string' ? body : await body();
  });
}
