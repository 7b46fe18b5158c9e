import type { Middleware } from 'koa';
import { unavailable } from '../../shared/dependency-health.js';
import type { AppState } from '../state.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
// The spec's delete link is a GET that deletes: a change all the same.
const CHANGING_GET = /^\/api\/delete\//;

/**
 * A change needs Redis after its commit (other processes' caches, jobs): while this process is not
 * connected, refuse it up front with 503, before any body is read or any row written.
 */
export function requireRedisForChanges(redis: { status: string }): Middleware<AppState> {
  return async (ctx, next) => {
    const isChange = !SAFE_METHODS.has(ctx.method) || CHANGING_GET.test(ctx.path);
    if (isChange && redis.status !== 'ready') throw unavailable('redis');
    await next();
  };
}
