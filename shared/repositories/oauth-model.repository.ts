import { and, eq, gt, inArray, isNotNull, isNull, lt, lte, notInArray, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { oauthModels } from '../db/oauth.schema.js';
import { type AccountRow, accounts } from '../db/schema.js';

export type OAuthModelPayload = Record<string, unknown>;

/** What a row holds besides its payload: the columns its lookups and revocation use. */
export interface OAuthModelIndexes {
  grantId: string | null;
  userCode: string | null;
  uid: string | null;
  /** null: kept until destroyed. */
  expiresAt: Date | null;
  /** Grants only: the account and client they are for. */
  accountId?: string | null;
  clientId?: string | null;
}

export interface StoredOAuthModel {
  payload: OAuthModelPayload;
  consumedAt: Date | null;
}

// The provider's model names this repository reads by meaning.
const GRANT = 'Grant';
const CLIENT = 'Client';

const STORED = { payload: oauthModels.payload, consumedAt: oauthModels.consumedAt };

/**
 * The authorization server's state (tokens, codes, sessions, grants, clients, its signing key), one
 * row per (kind, id). A row past its expiry reads as absent everywhere until `prune` deletes it.
 */
export class OAuthModelRepository {
  constructor(private readonly db: Database) {}

  /** Replaces the payload, lookups and expiry; a consumed row stays consumed (consumption is one-way). */
  async upsert(kind: string, id: string, payload: OAuthModelPayload, indexes: OAuthModelIndexes): Promise<void> {
    await this.db
      .insert(oauthModels)
      .values({ kind, id, payload, ...indexes })
      .onConflictDoUpdate({ target: [oauthModels.kind, oauthModels.id], set: { payload, ...indexes } });
  }

  /** Inserts the row unless (kind, id) exists, live or not; returns whether it did. */
  async insertIfAbsent(kind: string, id: string, payload: OAuthModelPayload): Promise<boolean> {
    const inserted = await this.db.insert(oauthModels).values({ kind, id, payload }).onConflictDoNothing().returning({ id: oauthModels.id });
    return inserted.length > 0;
  }

  async find(kind: string, id: string, now = new Date()): Promise<StoredOAuthModel | undefined> {
    const [row] = await this.db.select(STORED).from(oauthModels).where(and(eq(oauthModels.kind, kind), eq(oauthModels.id, id), live(now)));
    return row;
  }

  /**
   * The account a live grant of (account, client) belongs to, in one query with the grant check: what
   * every MCP request needs to know after its access token, whatever the account's status.
   */
  async liveGrantAccount(grantId: string, accountId: string, clientId: string, now = new Date()): Promise<AccountRow | undefined> {
    const [row] = await this.db
      .select({ account: accounts })
      .from(oauthModels)
      .innerJoin(accounts, eq(accounts.id, accountId))
      .where(and(eq(oauthModels.kind, GRANT), eq(oauthModels.id, grantId), eq(oauthModels.accountId, accountId), eq(oauthModels.clientId, clientId), live(now)));
    return row?.account;
  }

  async findByUid(kind: string, uid: string, now = new Date()): Promise<StoredOAuthModel | undefined> {
    const [row] = await this.db.select(STORED).from(oauthModels).where(and(eq(oauthModels.kind, kind), eq(oauthModels.uid, uid), live(now))).limit(1);
    return row;
  }

  async findByUserCode(kind: string, userCode: string, now = new Date()): Promise<StoredOAuthModel | undefined> {
    const [row] = await this.db
      .select(STORED)
      .from(oauthModels)
      .where(and(eq(oauthModels.kind, kind), eq(oauthModels.userCode, userCode), live(now)))
      .limit(1);
    return row;
  }

  /** Marks a live row consumed; the first consumption's time is kept. */
  async consume(kind: string, id: string, now = new Date()): Promise<void> {
    await this.db
      .update(oauthModels)
      .set({ consumedAt: sql`coalesce(${oauthModels.consumedAt}, ${now.toISOString()}::timestamptz)` })
      .where(and(eq(oauthModels.kind, kind), eq(oauthModels.id, id), live(now)));
  }

  async destroy(kind: string, id: string): Promise<void> {
    await this.db.delete(oauthModels).where(and(eq(oauthModels.kind, kind), eq(oauthModels.id, id)));
  }

  /** Deletes every row of the grant, whatever its kind. */
  async destroyGrant(grantId: string): Promise<void> {
    await this.db.delete(oauthModels).where(eq(oauthModels.grantId, grantId));
  }

  /** The live grants of an account (of one client, when given), as stored. */
  async grantsOf(accountId: string, clientId?: string, now = new Date()): Promise<{ clientId: string; payload: OAuthModelPayload }[]> {
    const rows = await this.db
      .select({ clientId: oauthModels.clientId, payload: oauthModels.payload })
      .from(oauthModels)
      .where(and(eq(oauthModels.kind, GRANT), eq(oauthModels.accountId, accountId), clientId === undefined ? undefined : eq(oauthModels.clientId, clientId), live(now)));
    return rows.map((row) => ({ clientId: row.clientId ?? '', payload: row.payload }));
  }

  /** Deletes every grant of the account for the client, with every code and token issued under them. */
  async destroyClientGrants(accountId: string, clientId: string): Promise<void> {
    const grants = this.db
      .select({ id: oauthModels.id })
      .from(oauthModels)
      .where(and(eq(oauthModels.kind, GRANT), eq(oauthModels.accountId, accountId), eq(oauthModels.clientId, clientId)));
    await this.db.delete(oauthModels).where(or(inArray(oauthModels.grantId, grants), and(eq(oauthModels.kind, GRANT), inArray(oauthModels.id, grants))));
  }

  /** Deletes registered clients issued before `cutoff` that no grant names; returns how many. */
  async pruneUnusedClients(cutoff: Date): Promise<number> {
    const issuedAt = sql`(${oauthModels.payload}->>'client_id_issued_at')::bigint`;
    const grants = this.db.select({ clientId: oauthModels.clientId }).from(oauthModels).where(and(eq(oauthModels.kind, GRANT), isNotNull(oauthModels.clientId)));
    const deleted = await this.db
      .delete(oauthModels)
      .where(and(eq(oauthModels.kind, CLIENT), lt(issuedAt, Math.floor(cutoff.getTime() / 1000)), notInArray(oauthModels.id, grants)))
      .returning({ id: oauthModels.id });
    return deleted.length;
  }

  /** Deletes the rows expired at `now`; returns how many. */
  async prune(now = new Date()): Promise<number> {
    const deleted = await this.db.delete(oauthModels).where(lte(oauthModels.expiresAt, now)).returning({ id: oauthModels.id });
    return deleted.length;
  }
}

function live(now: Date) {
  return or(isNull(oauthModels.expiresAt), gt(oauthModels.expiresAt, now));
}
