import { and, desc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { type OAuthConnectionRow, oauthConnections } from '../db/oauth.schema.js';

export interface ConnectedClient {
  clientId: string;
  clientName: string | null;
  clientUri: string | null;
}

/** The assistants each account connected (one row per account and client), owner-scoped. */
export class OAuthConnectionRepository {
  constructor(private readonly db: Database) {}

  /** Records a consent: a new connection, or the client's current name and URI on an existing one. */
  async upsert(accountId: string, client: ConnectedClient): Promise<void> {
    const described = { clientName: client.clientName, clientUri: client.clientUri };
    await this.db
      .insert(oauthConnections)
      .values({ accountId, ...client })
      .onConflictDoUpdate({ target: [oauthConnections.accountId, oauthConnections.clientId], set: described });
  }

  async list(accountId: string): Promise<OAuthConnectionRow[]> {
    return this.db.select().from(oauthConnections).where(eq(oauthConnections.accountId, accountId)).orderBy(desc(oauthConnections.connectedAt));
  }

  /** Notes a use; at most one write per `resolutionMs`, since every MCP request reports one. */
  async touch(accountId: string, clientId: string, resolutionMs: number, now = new Date()): Promise<void> {
    const stale = new Date(now.getTime() - resolutionMs);
    await this.db
      .update(oauthConnections)
      .set({ lastUsedAt: sql`${now.toISOString()}::timestamptz` })
      .where(
        and(
          eq(oauthConnections.accountId, accountId),
          eq(oauthConnections.clientId, clientId),
          or(isNull(oauthConnections.lastUsedAt), lt(oauthConnections.lastUsedAt, stale)),
        ),
      );
  }

  /** Returns whether the account had that connection. */
  async delete(accountId: string, clientId: string): Promise<boolean> {
    const deleted = await this.db
      .delete(oauthConnections)
      .where(and(eq(oauthConnections.accountId, accountId), eq(oauthConnections.clientId, clientId)))
      .returning({ clientId: oauthConnections.clientId });
    return deleted.length > 0;
  }
}
