import { expect } from 'chai';
import { sql } from 'drizzle-orm';
import { openPglite, type DatabaseHandle } from '../../shared/db/client.js';
import { AppError } from '../../shared/errors.js';
import { createLogger } from '../../shared/logger.js';

/** The JSON lines a logger wrote. */
function capturingLogger() {
  const lines: string[] = [];
  const logger = createLogger('info', 'hfs-test', { write: (line: string) => void lines.push(line) });
  return { logger, lines, entries: () => lines.map((line) => JSON.parse(line) as { err: Record<string, unknown> }) };
}

describe('Error logs: a failed query names its SQL, never its parameters', function () {
  this.timeout(60_000);
  const SECRET = '$scrypt$N=16384,r=8,p=1$c2VjcmV0LXNhbHQ$aGFzaC1vZi1hLXBhc3N3b3Jk';
  let database: DatabaseHandle;
  let failure: unknown;

  before(async () => {
    database = await openPglite(undefined);
    // A real DrizzleQueryError from the real driver: the division fails, the secret is only a parameter.
    failure = await database.db.execute(sql`select ${SECRET}::text as secret, 1 / 0 as broken`).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(String((failure as Error).message)).to.include(SECRET); // what drizzle itself would print
  });
  after(() => database.close());

  it('logs the SQL and the driver error (with its SQLSTATE) and leaves the parameters out of every field', () => {
    const { logger, lines, entries } = capturingLogger();
    logger.error({ err: failure }, 'query failed');
    expect(lines.join('')).to.not.include(SECRET).and.not.include('params');
    const { err } = entries()[0]!;
    expect(err.type).to.equal('DrizzleQueryError');
    expect(err.query).to.match(/^select \$1::text as secret, 1 \/ 0 as broken$/);
    expect(err.message).to.match(/^Failed query: select .*: division by zero$/);
    expect(err.stack).to.match(/^Error: Failed query: select /).and.include('\n    at ');
    expect(err.cause).to.include({ message: 'division by zero', code: '22012' });
  });

  it('cleans a failed query that another error wraps as its cause', () => {
    const { logger, lines, entries } = capturingLogger();
    logger.error({ err: new AppError(503, 'unavailable', 'Database unavailable', {}, { cause: failure }) }, 'request failed');
    expect(lines.join('')).to.not.include(SECRET).and.not.include('params');
    const { err } = entries()[0]!;
    expect(err.type).to.equal('AppError');
    expect(err.message).to.equal('Database unavailable: Failed query: select $1::text as secret, 1 / 0 as broken: division by zero');
    expect(err.stack).to.include('caused by: Error: Failed query: select');
  });

  it("leaves out PostgreSQL's dump of a row that broke a constraint", async () => {
    await database.db.execute(sql`create temporary table held (secret text, required text not null)`);
    const violation = await database.db.execute(sql`insert into held values (${SECRET}, null)`).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect((violation as Error & { cause: { detail: string } }).cause.detail).to.include(SECRET);
    const { logger, lines, entries } = capturingLogger();
    logger.error({ err: violation }, 'insert failed');
    expect(lines.join('')).to.not.include(SECRET);
    expect(entries()[0]!.err.cause).to.include({ code: '23502', detail: 'Failing row contains (…)' });
  });

  it('leaves other errors as pino serializes them', () => {
    const { logger, entries } = capturingLogger();
    logger.error({ err: Object.assign(new Error('disk full'), { code: 'ENOSPC', path: '/data' }) }, 'write failed');
    expect(entries()[0]!.err).to.include({ type: 'Error', message: 'disk full', code: 'ENOSPC', path: '/data' });
  });
});
