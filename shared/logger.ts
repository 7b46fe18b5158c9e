import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type Logger } from 'pino';

export type { Logger };

/** Carries the request (or job) id through every await, so log lines from services name it too. */
export const logContext = new AsyncLocalStorage<{ reqId: string }>();

export function createLogger(level: string, name = 'hfs'): Logger {
  return pino({
    name,
    level,
    mixin: () => {
      const store = logContext.getStore();
      return store ? { reqId: store.reqId } : {};
    },
  });
}
