import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Database } from './client.js';

const dialect = new PgDialect();

/**
 * A hand-written statement (one drizzle's builders cannot express, such as a data-modifying CTE)
 * prepared under `name`: PostgreSQL parses and plans it once per connection instead of on every
 * call. Values go in as `sql.placeholder(...)`; the result is the driver's, rows as named columns.
 */
export function prepareSql(db: Database, name: string, query: SQL) {
  const prepared = db._.session.prepareQuery(dialect.sqlToQuery(query), undefined, name, false);
  return async (values: Record<string, unknown>): Promise<Record<string, unknown>[]> => {
    const result = (await prepared.execute(values)) as { rows: Record<string, unknown>[] };
    return result.rows;
  };
}
