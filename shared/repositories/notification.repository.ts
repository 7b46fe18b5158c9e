import { and, count, desc, eq, gt, sql } from 'drizzle-orm';
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
   * One batch of a broadcast: a row for each account after `afterAccountId` (ordered by id), at most
   * `limit` accounts. Rows that already exist for this broadcast are skipped, so a retried job adds
   * no duplicates. Returns the new rows and the last account id of the batch (undefined when done).
   */
  async insertBroadcastBatch(broadcastId: string, n: NewNotification, afterAccountId: string | null, limit: number) {
    const batch = await this.db
      .select({ id: accounts.id })
      .from(accounts)
      .where(afterAccountId ? gt(accounts.id, afterAccountId) : sql`true`)
      .orderBy(accounts.id)
      .limit(limit);
    if (batch.length === 0) return { rows: [] as NotificationRow[], last: undefined };
    const rows = await this.db
      .insert(notifications)
      .values(batch.map(({ id }) => ({ accountId: id, broadcastId, ...n })))
      .onConflictDoNothing({ target: [notifications.broadcastId, notifications.accountId] })
      .returning();
    return { rows, last: batch.length < limit ? undefined : batch[batch.length - 1]!.id };
  }
}
