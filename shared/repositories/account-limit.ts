import { count, eq } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Database, Transaction } from '../db/client.js';
import { accounts } from '../db/schema.js';
import { done, refused, type Outcome } from './outcome.js';

/**
 * Runs `insert` unless the account already holds `max` rows of the table whose account column is
 * `owner`. The account row is locked for the count, so concurrent inserts cannot pass the limit.
 */
export async function insertWithinLimit<T>(db: Database, accountId: string, owner: PgColumn, max: number, insert: (tx: Transaction) => Promise<T>): Promise<Outcome<T, 'limit_reached'>> {
  return db.transaction(async (tx) => {
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for('update');
    const [held] = await tx.select({ n: count() }).from(owner.table).where(eq(owner, accountId));
    if ((held?.n ?? 0) >= max) return refused('limit_reached');
    return done(await insert(tx));
  });
}
