import { and, count, desc, eq, gt, lte, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { accounts, notifications } from '../db/schema.js';

export type NotificationRow = typeof notifications.$inferSelect;
export type NewNotification = Pick<NotificationRow, 'type' | 'title' | 'message' | 'data'>;

/** All SQL on notifications, always for one account (or, for broadcasts, a batch of them). */
export class NotificationRepository {
  constructor(private readonly db: Database) {}

  async insert(accountId: string, n: NewNotification): Promise<NotificationRow> {
    const [row] = await this.db.insert(notifications).values({ accountId, ...n }).returning();
    return row!;
  }

  async recent(accountId: string, limit: number): Promise<NotificationRow[]> {
    return this.db
      .select()
      .from(notifications)
      .where(eq(notifications.accountId, accountId))
      .orderBy(desc(notifications.seq))
      .limit(limit);
  }

  /** What an account missed after the event id `afterSeq`, oldest first. */
  async after(accountId: string, afterSeq: number, limit: number): Promise<NotificationRow[]> {
    return this.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.accountId, accountId), gt(notifications.seq, afterSeq)))
      .orderBy(notifications.seq)
      .limit(limit);
  }

  async unreadCount(accountId: string): Promise<number> {
    const [row] = await this.db
      .select({ n: count() })
      .from(notifications)
      .where(and(eq(notifications.accountId, accountId), eq(notifications.read, false)));
    return row?.n ?? 0;
  }

  async markRead(accountId: string, id: string): Promise<NotificationRow | undefined> {
    const [row] = await this.db
      .update(notifications)
      .set({ read: true })
      .where(and(eq(notifications.accountId, accountId), eq(notifications.id, id)))
      .returning();
    return row;
  }

  /**
   * One batch of a broadcast: a row for each account after `afterAccountId` (in id order), at most
   * `limit` accounts, each with its account's unread count once written. Rows that already exist for
   * this broadcast are skipped, so a retried job adds no duplicates. Returns the new rows and the last
   * account id of the batch (undefined when done).
   */
  async insertBroadcastBatch(broadcastId: string, n: NewNotification, afterAccountId: string | null, limit: number) {
    // The batch ends at the `limit`-th account after `afterAccountId`; with fewer left, it takes the rest.
    const [edge] = await this.db
      .select({ id: accounts.id })
      .from(accounts)
      .where(afterAccountId ? gt(accounts.id, afterAccountId) : undefined)
      .orderBy(accounts.id)
      .offset(limit - 1)
      .limit(1);
    const inBatch = (accountId: typeof accounts.id | typeof notifications.accountId) =>
      and(afterAccountId ? gt(accountId, afterAccountId) : undefined, edge ? lte(accountId, edge.id) : undefined) ?? sql`true`;
    // INSERT … SELECT: the database copies the notification to each account, where VALUES would carry
    // it once per account. Numbers come back as float8, which both drivers (node-postgres, PGlite) read alike.
    const result = await this.db.execute(sql`
      insert into ${notifications} (account_id, type, title, message, data, broadcast_id)
      select ${accounts.id}, ${n.type}, ${n.title}, ${n.message}, ${JSON.stringify(n.data)}::jsonb, ${broadcastId}::uuid
      from ${accounts} where ${inBatch(accounts.id)}
      on conflict (broadcast_id, account_id) do nothing
      returning id, account_id, seq::float8 as seq, (extract(epoch from created_at) * 1000)::float8 as created_ms`);
    const inserted = (result as unknown as { rows: { id: string; account_id: string; seq: number; created_ms: number }[] }).rows;
    // The batch's unread counts in one pass over the (account, seq) index, not one count per account.
    const counts =
      inserted.length === 0
        ? []
        : await this.db
            .select({ accountId: notifications.accountId, n: count() })
            .from(notifications)
            .where(and(inBatch(notifications.accountId), eq(notifications.read, false)))
            .groupBy(notifications.accountId);
    const unread = new Map(counts.map((c) => [c.accountId, c.n]));
    const written = inserted.map((r) => ({
      row: { id: r.id, accountId: r.account_id, broadcastId, ...n, read: false, seq: r.seq, createdAt: new Date(r.created_ms) } satisfies NotificationRow,
      unreadCount: unread.get(r.account_id) ?? 0,
    }));
    return { written, last: edge?.id };
  }
}
