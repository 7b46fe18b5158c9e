import { EventEmitter } from 'node:events';
import { expect } from 'chai';
import { createLogger } from '../../shared/logger.js';

export interface LogLine {
  msg: string;
  level: number;
  err?: unknown;
  [field: string]: unknown;
}

// A failed query as drizzle and PostgreSQL word it, and a stack frame as pino writes it in JSON.
const SQL = /Failed query|\b(select|insert into|update|delete from)\b.*\b(from|values|set|where)\b/i;
const STACK = /"stack"|\\n\s+at /;

/** The service's logger writing its JSON lines where the test reads them, exactly as they would reach stdout. */
export function captureLogs(level = 'info') {
  const raw: string[] = [];
  const written = new EventEmitter();
  const logger = createLogger(level, 'hfs-test', {
    write: (line: string) => {
      raw.push(line);
      written.emit('line', JSON.parse(line) as LogLine);
    },
  });
  return {
    logger,
    /** What is written from now on: the lines so far, and the first line (written or still to come) that `matches`. */
    from() {
      const start = raw.length;
      return {
        lines: () => raw.slice(start),
        waitFor(matches: (line: LogLine) => boolean): Promise<LogLine> {
          const found = raw.slice(start).map((line) => JSON.parse(line) as LogLine).find(matches);
          if (found) return Promise.resolve(found);
          return new Promise((resolve) => {
            const listener = (line: LogLine) => {
              if (!matches(line)) return;
              written.off('line', listener);
              resolve(line);
            };
            written.on('line', listener);
          });
        },
      };
    },
  };
}

/** Lines a client's mistake may leave: no SQL, no stack trace, each a single line. */
export function expectNoSqlOrStack(lines: string[]) {
  expect(lines.length, 'at least the request lines').to.be.greaterThan(0);
  for (const line of lines) {
    expect(line, line).to.not.match(SQL);
    expect(line, line).to.not.match(STACK);
  }
}
