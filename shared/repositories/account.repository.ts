import { and, eq, inArray, sql } from 'drizzle-orm';
import { Batcher } from '../batcher.js';
import type { Database } from '../db/client.js';
import { accounts, type AccountRow } from '../db/schema.js';
import type { PlanName } from '../plans.js';
import { done, type Outcome } from './outcome.js';
import { outcomeOf, refusingUnstorableText } from './pg-errors.js';

export type NewAccount = Pick<AccountRow, 'username' | 'email' | 'apiKeyHash' | 'apiKeySealed'> &
  Partial<Pick<AccountRow, 'passwordHash' | 'plan'>>;

/** Accounts are their own owner: every query here is keyed by the account's id or a unique secret. */
export class AccountRepository {
  // Requests presenting the same key at once share one lookup, always one that began after they came.
  private readonly keyLookups = new Batcher<null, AccountRow | undefined>(async (hash, waiting) => {
    const [row] = await this.byApiKeyHash.execute({ hash });
    // Each request gets its own copy to keep.
    return waiting.map(() => ({ ok: true, value: row && { ...row } }));
  });
  // Every authenticated request runs this lookup: built once, and a named prepared statement on the server.
  private readonly byApiKeyHash;

  constructor(private readonly db: Database) {
    this.byApiKeyHash = db
      .select()
      .from(accounts)
      .where(eq(accounts.apiKeyHash, sql.placeholder('hash')))
      .prepare('account_by_api_key_hash');
  }

  /** Usernames are unique ignoring case: the unique index decides whether one is `taken`. */
  async create(input: NewAccount): Promise<Outcome<AccountRow, 'taken'>> {
    return outcomeOf(async () => done((await this.db.insert(accounts).values(input).returning())[0]!), { unique: 'taken' });
  }

  async findById(id: string): Promise<AccountRow | undefined> {
    const [row] = await this.db.select().from(accounts).where(eq(accounts.id, id));
    return row;
  }

  /** The accounts of these ids (a batch's owners), in no set order. */
  async findByIds(ids: readonly string[]): Promise<AccountRow[]> {
    if (ids.length === 0) return [];
    return this.db.select().from(accounts).where(inArray(accounts.id, [...ids]));
  }

  async findByUsername(username: string): Promise<AccountRow | undefined> {
    const [row] = await refusingUnstorableText(() =>
      this.db
        .select()
        .from(accounts)
        .where(sql`lower(${accounts.username}) = lower(${username})`),
    );
    return row;
  }

  async findByApiKeyHash(hash: string): Promise<AccountRow | undefined> {
    return this.keyLookups.submit(hash, null);
  }

  async update(id: string, changes: Partial<Omit<AccountRow, 'id' | 'createdAt'>>): Promise<AccountRow | undefined> {
    const [row] = await this.db.update(accounts).set(changes).where(eq(accounts.id, id)).returning();
    return row;
  }

  async setPlan(id: string, plan: PlanName) {
    return this.update(id, { plan });
  }

  /**
   * Swaps the primary key if this month's allowance is not used up — and, when `replacingHash` is
   * given, only if that is still the current key — in one statement, so concurrent regenerations
   * can neither exceed the allowance nor both succeed with the same old key. Returns undefined when
   * either condition fails.
   */
  async rotateApiKey(
    id: string,
    key: { hash: string; sealed: string },
    month: string,
    allowance: number,
    replacingHash?: string,
  ) {
    const [row] = await this.db
      .update(accounts)
      .set({
        apiKeyHash: key.hash,
        apiKeySealed: key.sealed,
        keyRegenCount: sql`case when ${accounts.keyRegenMonth} = ${month} then ${accounts.keyRegenCount} + 1 else 1 end`,
        keyRegenMonth: month,
        keyRegeneratedAt: new Date(),
      })
      .where(
        and(
          eq(accounts.id, id),
          replacingHash === undefined ? undefined : eq(accounts.apiKeyHash, replacingHash),
          sql`(${accounts.keyRegenMonth} is distinct from ${month} or ${accounts.keyRegenCount} < ${allowance})`,
        ),
      )
      .returning();
    return row;
  }
}
