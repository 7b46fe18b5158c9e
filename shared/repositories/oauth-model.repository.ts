import { and, eq, gt, isNull, lte, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { oauthModels } from '../db/schema.js';

export type OAuthModelPayload = Record<string, unknown>;

/** What a row holds besides its payload: the columns its lookups and revocation use. */
export interface OAuthModelIndexes {
  grantId: string | null;
  userCode: string | null;
  uid: string | null;
  /** null: kept until destroyed. */
  expiresAt: Date | null;
}

export interface StoredOAuthModel {
  payload: OAuthModelPayload;
  consumedAt: Date | null;
}

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

  /** Deletes the rows expired at `now`; returns how many. */
  async prune(now = new Date()): Promise<number> {
    const deleted = await this.db.delete(oauthModels).where(lte(oauthModels.expiresAt, now)).returning({ id: oauthModels.id });
    return deleted.length;
  }
}

function live(now: Date) {
  return or(isNull(oauthModels.expiresAt), gt(oauthModels.expiresAt, now));
}
