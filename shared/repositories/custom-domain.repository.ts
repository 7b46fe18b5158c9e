import { and, eq, lt, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { accounts, acmeAccounts, customDomains } from '../db/schema.js';
import { done, type Outcome } from './outcome.js';
import { outcomeOf } from './pg-errors.js';

export type CustomDomainRow = typeof customDomains.$inferSelect;
export type CustomDomainPatch = Partial<Omit<CustomDomainRow, 'accountId' | 'domain' | 'createdAt'>>;

/** Each account's custom domain (one at most), owner-scoped; and the service's ACME account keys. */
export class CustomDomainRepository {
  constructor(private readonly db: Database) {}

  async findByAccount(accountId: string): Promise<CustomDomainRow | undefined> {
    const [row] = await this.db.select().from(customDomains).where(eq(customDomains.accountId, accountId));
    return row;
  }

  /** A new domain for an account that has none; `taken` when another account has it. */
  async create(
    accountId: string,
    values: Pick<CustomDomainRow, 'domain' | 'txtRecordName' | 'txtRecordValue'>,
  ): Promise<Outcome<CustomDomainRow, 'taken'>> {
    return outcomeOf(async () => done((await this.db.insert(customDomains).values({ accountId, ...values }).returning())[0]!), { unique: 'taken' });
  }

  /** Updates the account's domain row, if it is still `domain` (a delete and re-add meanwhile wins). */
  async update(accountId: string, domain: string, patch: CustomDomainPatch): Promise<CustomDomainRow | undefined> {
    const [row] = await this.db
      .update(customDomains)
      .set(patch)
      .where(and(eq(customDomains.accountId, accountId), eq(customDomains.domain, domain)))
      .returning();
    return row;
  }

  /** An active domain with its owner's name and certificate, for serving (no owner is given: Host names it). */
  async findActive(domain: string) {
    const [row] = await this.db
      .select({ domain: customDomains.domain, username: accounts.username, certificatePem: customDomains.certificatePem, privateKeySealed: customDomains.privateKeySealed })
      .from(customDomains)
      .innerJoin(accounts, eq(accounts.id, customDomains.accountId))
      // lower(domain), as the unique index has it: an index lookup, not a scan of every account (callers ask in lower case).
      .where(and(eq(sql`lower(${customDomains.domain})`, domain), eq(customDomains.status, 'active'), eq(accounts.status, 'active')));
    return row;
  }

  /** Active domains whose certificate ends before `before`, for renewal (across accounts). */
  async dueForRenewal(before: Date): Promise<CustomDomainRow[]> {
    return this.db
      .select()
      .from(customDomains)
      .where(and(eq(customDomains.status, 'active'), lt(customDomains.certificateExpiresAt, before)));
  }

  /** Marks the domain the account's links use (null: none), on the account itself. */
  async setAccountDomain(accountId: string, domain: string | null): Promise<void> {
    await this.db.update(accounts).set({ customDomain: domain }).where(eq(accounts.id, accountId));
  }

  async delete(accountId: string): Promise<CustomDomainRow | undefined> {
    const [row] = await this.db.delete(customDomains).where(eq(customDomains.accountId, accountId)).returning();
    return row;
  }

  /** The sealed ACME account key at a directory, made by the first caller (concurrent makers agree on one). */
  async acmeAccountKey(directoryUrl: string, makeSealed: () => Promise<string>): Promise<string> {
    const [existing] = await this.db.select().from(acmeAccounts).where(eq(acmeAccounts.directoryUrl, directoryUrl));
    if (existing) return existing.keySealed;
    await this.db.insert(acmeAccounts).values({ directoryUrl, keySealed: await makeSealed() }).onConflictDoNothing();
    const [row] = await this.db.select().from(acmeAccounts).where(eq(acmeAccounts.directoryUrl, directoryUrl));
    return row!.keySealed;
  }
}
