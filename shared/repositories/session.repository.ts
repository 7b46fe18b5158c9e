import { and, eq, gt } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { accounts, sessions, type AccountRow } from '../db/schema.js';

/** Sign-in sessions, looked up by the hash of their token. */
export class SessionRepository {
  constructor(private readonly db: Database) {}

  async create(accountId: string, tokenHash: string, expiresAt: Date, userAgent: string | null): Promise<void> {
    await this.db.insert(sessions).values({ accountId, tokenHash, expiresAt, userAgent });
  }

  async findAccount(tokenHash: string, now = new Date()): Promise<AccountRow | undefined> {
    const [row] = await this.db
      .select({ account: accounts })
      .from(sessions)
      .innerJoin(accounts, eq(accounts.id, sessions.accountId))
      .where(and(eq(sessions.tokenHash, tokenHash), gt(sessions.expiresAt, now)));
    return row?.account;
  }

  async delete(tokenHash: string): Promise<void> {
    await this.db.delete(sessions).where(eq(sessions.tokenHash, tokenHash));
  }
}
