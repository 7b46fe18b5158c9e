import { and, desc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { type AccessTokenRow, accessTokens } from '../db/integrations.schema.js';
import { type AccountRow, accounts } from '../db/schema.js';
import { insertWithinLimit } from './account-limit.js';
import type { Outcome } from './outcome.js';

// Concurrent requests may all see an old lastUsedAt: the condition keeps it to one write a minute.
const TOUCH_EVERY = sql`interval '1 minute'`;

/** All SQL on personal access tokens; every statement but the lookup by hash is scoped to the owner. */
export class AccessTokenRepository {
  constructor(private readonly db: Database) {}

  /** Creates a token unless the account holds `max` already. */
  async create(accountId: string, values: Pick<AccessTokenRow, 'name' | 'scopes' | 'tokenHash' | 'expiresAt'>, max: number): Promise<Outcome<AccessTokenRow, 'limit_reached'>> {
    return insertWithinLimit(this.db, accountId, accessTokens.accountId, max, async (tx) => {
      const [row] = await tx
        .insert(accessTokens)
        .values({ accountId, ...values })
        .returning();
      return row!;
    });
  }

  async list(accountId: string): Promise<AccessTokenRow[]> {
    return this.db.select().from(accessTokens).where(eq(accessTokens.accountId, accountId)).orderBy(desc(accessTokens.createdAt), desc(accessTokens.id));
  }

  async delete(accountId: string, id: string): Promise<AccessTokenRow | undefined> {
    const [row] = await this.db
      .delete(accessTokens)
      .where(and(eq(accessTokens.accountId, accountId), eq(accessTokens.id, id)))
      .returning();
    return row;
  }

  /** A live token (not expired) by the hash of its secret, with its account's row, in one query. */
  async findLive(tokenHash: string): Promise<{ token: AccessTokenRow; account: AccountRow } | undefined> {
    const [found] = await this.db
      .select({ token: accessTokens, account: accounts })
      .from(accessTokens)
      .innerJoin(accounts, eq(accounts.id, accessTokens.accountId))
      .where(and(eq(accessTokens.tokenHash, tokenHash), or(isNull(accessTokens.expiresAt), gt(accessTokens.expiresAt, sql`now()`))));
    return found;
  }

  /** Records a use, unless one was recorded within the last minute. */
  async touch(id: string): Promise<void> {
    await this.db
      .update(accessTokens)
      .set({ lastUsedAt: sql`now()` })
      .where(and(eq(accessTokens.id, id), or(isNull(accessTokens.lastUsedAt), lt(accessTokens.lastUsedAt, sql`now() - ${TOUCH_EVERY}`))));
  }
}
