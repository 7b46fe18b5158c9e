import { pino, type Logger } from 'pino';

export type { Logger };

// No AsyncLocalStorage for request ids: on Node 20 it turns on promise hooks for the whole process,
// which cost ~8% of the web thread per small upload (docs/decisions.md). The request line and
// unhandled errors carry the request id; a service's own lines name the file, key or job they concern.
export function createLogger(level: string, name = 'hfs'): Logger {
  return pino({ name, level });
}
