import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { AppError } from '../../errors.js';
import type { JobQueues } from '../../jobs.js';
import type { Principal } from '../../principal.js';
import { validate } from '../../validation.js';
import type { NewNotification, NotificationRepository, NotificationRow } from '../../repositories/notification.repository.js';

export const RECENT_LIMIT = 50;
// Accounts written per statement: fewer, larger statements write a broadcast faster.
const BROADCAST_BATCH = 5000;
const REPLAY_LIMIT = 500;

export const notificationInputSchema = z.object({
  type: z.string().trim().min(1).max(40),
  title: z.string().trim().min(1).max(200),
  message: z.string().trim().min(1).max(2000),
  data: z.record(z.string(), z.unknown()).default({}),
});
export type NotificationInput = z.input<typeof notificationInputSchema>;

/** What a stream or a waiter hears: one account's new notification or new unread count. */
export type NotificationEvent =
  | { accountId: string; kind: 'notification'; notification: Notification; seq: number; unreadCount: number }
  | { accountId: string; kind: 'unread'; unreadCount: number };
type Notification = ReturnType<typeof toNotification>;

/**
 * What the pub/sub channel carries: one account's event, or a broadcast batch's notifications in one
 * message (what they share once, then each account's id, seq and unread count), so a broadcast to
 * 100,000 accounts is 20 messages that each web process expands only for the accounts it has streams of.
 */
export type NotificationMessage = NotificationEvent | BroadcastBatch;
export interface BroadcastBatch {
  kind: 'broadcast';
  shared: Omit<Notification, 'id' | 'userId'>;
  /** [accountId, notification id, seq, unreadCount] */
  recipients: [string, string, number, number][];
}

export function toNotification(row: NotificationRow) {
  return {
    id: row.id,
    userId: row.accountId,
    type: row.type,
    title: row.title,
    message: row.message,
    read: row.read,
    data: row.data,
    broadcastId: row.broadcastId,
    timestamp: row.createdAt.toISOString(),
  };
}

/**
 * The one way every feature notifies an account. Each new notification is stored, then published
 * on Redis so that every open stream of that account, in any web process, receives it.
 */
export class NotificationService {
  readonly channel: string;

  constructor(
    private readonly notifications: NotificationRepository,
    private readonly redis: Redis,
    private readonly jobs: JobQueues,
    prefix: string,
  ) {
    this.channel = `${prefix}:notifications`;
  }

  async notify(accountId: string, input: NotificationInput) {
    const row = await this.notifications.insert(accountId, validate(notificationInputSchema, input));
    await this.publishNew(row, await this.notifications.unreadCount(row.accountId));
    return toNotification(row);
  }

  /** A notification to every account: a job on the notify queue writes and publishes it in batches. */
  async broadcast(input: NotificationInput): Promise<{ broadcastId: string }> {
    const broadcastId = randomUUID();
    await this.jobs.add('notify.broadcast', { broadcastId, ...validate(notificationInputSchema, input) }, { jobId: `broadcast-${broadcastId}` });
    return { broadcastId };
  }

  /** Worker side of a broadcast; safe to retry: rows that exist are not written or published again. */
  async runBroadcast(broadcastId: string, n: NewNotification): Promise<number> {
    let written = 0;
    let after: string | null = null;
    for (;;) {
      const { written: rows, last } = await this.notifications.insertBroadcastBatch(broadcastId, n, after, BROADCAST_BATCH);
      // One statement wrote them: they differ only in account, id and seq (created_at is the statement's now()).
      if (rows[0]) {
        const { id: _id, userId: _userId, ...shared } = toNotification(rows[0].row);
        await this.publish({ kind: 'broadcast', shared, recipients: rows.map(({ row, unreadCount }) => [row.accountId, row.id, row.seq, unreadCount]) });
      }
      written += rows.length;
      if (!last) return written;
      after = last;
    }
  }

  async list(account: Principal) {
    const [rows, unreadCount] = await Promise.all([
      this.notifications.recent(account.id, RECENT_LIMIT),
      this.notifications.unreadCount(account.id),
    ]);
    return { notifications: rows.map(toNotification), unreadCount };
  }

  async markRead(account: Principal, notificationId: string): Promise<void> {
    const row = z.uuid().safeParse(notificationId).success ? await this.notifications.markRead(account.id, notificationId) : undefined;
    if (!row) throw AppError.notFound('Notification not found');
    await this.publish({ accountId: account.id, kind: 'unread', unreadCount: await this.notifications.unreadCount(account.id) });
  }

  async unreadCount(accountId: string): Promise<number> {
    return this.notifications.unreadCount(accountId);
  }

  /** The event id a new stream starts from: the account's newest notification. */
  async latestSeq(accountId: string): Promise<number> {
    return (await this.notifications.recent(accountId, 1))[0]?.seq ?? 0;
  }

  /** Missed notifications after an event id, for Last-Event-ID replay. */
  async missedSince(accountId: string, lastSeq: number): Promise<NotificationRow[]> {
    return this.notifications.after(accountId, lastSeq, REPLAY_LIMIT);
  }

  private async publishNew(row: NotificationRow, unreadCount: number) {
    await this.publish({ accountId: row.accountId, kind: 'notification', notification: toNotification(row), seq: row.seq, unreadCount });
  }

  private async publish(message: NotificationMessage) {
    await this.redis.publish(this.channel, JSON.stringify(message));
  }
}
