import { request } from 'node:http';
import { SseParser, type SseEvent } from '../../scripts/lib/sse-parser.js';

export type { SseEvent };

export interface SseClient {
  status: number;
  events: SseEvent[];
  comments: string[];
  /** Resolves with the first event (in order, after those already taken) that matches. */
  next(predicate?: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  close(): void;
}

/** A minimal EventSource for tests: parses `id:`, `event:`, `data:` and comment lines. */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const events: SseEvent[] = [];
    const comments: string[] = [];
    const waiters: (() => void)[] = [];
    let taken = 0;
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const parser = new SseParser();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const parsed = parser.feed(chunk);
        events.push(...parsed.events);
        comments.push(...parsed.comments);
        waiters.splice(0).forEach((w) => w());
      });
      resolve({
        status: res.statusCode ?? 0,
        events,
        comments,
        async next(predicate = () => true, timeoutMs = 5000) {
          const deadline = Date.now() + timeoutMs;
          for (;;) {
            while (taken < events.length) {
              const event = events[taken++]!;
              if (predicate(event)) return event;
            }
            const left = deadline - Date.now();
            if (left <= 0) throw new Error(`no matching event; got ${JSON.stringify(events)}`);
            // Woken by the next chunk, or by the deadline.
            await new Promise<void>((r) => {
              const timer = setTimeout(r, left);
              waiters.push(() => {
                clearTimeout(timer);
                r();
              });
            });
          }
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err);
    });
    req.end();
  });
}
