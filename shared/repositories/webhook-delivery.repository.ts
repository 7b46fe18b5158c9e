import { and, arrayContains, asc, desc, eq, getTableColumns, inArray, lt, ne, type SQL, sql } from 'drizzle-orm';
import type { WebhookEvent, WebhookEventType } from '../contracts/webhook.contract.js';
import type { Database } from '../db/client.js';
import { type WebhookDeliveryRow, type WebhookEndpointRow, webhookDeliveries, webhookEndpoints } from '../db/integrations.schema.js';
import { failPending } from './webhook-endpoint.repository.js';

/** How one attempt went: the receiver's status (null when none came), why it failed, how long it took. */
export interface DeliveryAttempt {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export type DeliveryListing = Omit<WebhookDeliveryRow, 'body'>;

const { body: _body, ...listed } = getTableColumns(webhookDeliveries);

/**
 * Webhook deliveries. Events and listings take the owner's id; the worker reaches a delivery by its
 * id (the job's), as moderation reaches a file.
 */
export class WebhookDeliveryRepository {
  constructor(private readonly db: Database) {}

  /** Whether an enabled endpoint of the account takes `type`: all an event costs an account without webhooks. */
  async hasListener(accountId: string, type: WebhookEvent): Promise<boolean> {
    const [row] = await this.db
      .select({ id: webhookEndpoints.id })
      .from(webhookEndpoints)
      .where(listening(accountId, type))
      .limit(1);
    return row !== undefined;
  }

  /** Which of the accounts have an enabled endpoint that takes `type`: a batch's owners in one query. */
  async listenersAmong(accountIds: readonly string[], type: WebhookEvent): Promise<Set<string>> {
    if (accountIds.length === 0) return new Set();
    const rows = await this.db
      .selectDistinct({ accountId: webhookEndpoints.accountId })
      .from(webhookEndpoints)
      .where(and(inArray(webhookEndpoints.accountId, [...accountIds]), eq(webhookEndpoints.enabled, true), arrayContains(webhookEndpoints.events, [type])));
    return new Set(rows.map((row) => row.accountId));
  }

  /** One pending delivery per body and per enabled endpoint of the account that takes `type`, in one statement. */
  async record(accountId: string, type: WebhookEvent, bodies: string[]): Promise<string[]> {
    return this.insertFor(listening(accountId, type), type, bodies);
  }

  /** A `webhook.test` delivery to the account's endpoint, whatever events it takes; undefined when it has none of that id. */
  async recordTest(accountId: string, endpointId: string, body: string): Promise<DeliveryListing | undefined> {
    const [id] = await this.insertFor(and(eq(webhookEndpoints.accountId, accountId), eq(webhookEndpoints.id, endpointId))!, 'webhook.test', [body]);
    if (id === undefined) return undefined;
    const [row] = await this.db.select(listed).from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
    return row;
  }

  /** A delivery of each body to every endpoint `endpoints` selects (INSERT … SELECT: an endpoint deleted meanwhile is simply not there). */
  private async insertFor(endpoints: SQL, type: WebhookEventType, bodies: string[]): Promise<string[]> {
    const result = await this.db.execute(sql`
      insert into ${webhookDeliveries} (endpoint_id, event_type, body)
      select ${webhookEndpoints.id}, ${type}, b.body
      from ${webhookEndpoints} cross join jsonb_array_elements_text(${JSON.stringify(bodies)}::jsonb) as b(body)
      where ${endpoints}
      returning id`);
    // Both drivers (node-postgres, PGlite) answer raw rows under `rows`.
    return (result as unknown as { rows: { id: string }[] }).rows.map((r) => r.id);
  }

  /** The endpoint's latest deliveries, newest first, without their bodies. */
  async listOwned(accountId: string, endpointId: string, limit: number): Promise<DeliveryListing[]> {
    return this.db
      .select(listed)
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(and(eq(webhookEndpoints.accountId, accountId), eq(webhookDeliveries.endpointId, endpointId)))
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(limit);
  }

  /** The worker's read: the delivery and where it goes. */
  async findWithEndpoint(id: string): Promise<{ delivery: WebhookDeliveryRow; endpoint: WebhookEndpointRow } | undefined> {
    const [row] = await this.db
      .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(eq(webhookDeliveries.id, id));
    return row;
  }

  /** Counts an attempt against its endpoint: a success clears the run of failures. Returns the run. */
  async countAttempt(endpointId: string, succeeded: boolean): Promise<number> {
    const [row] = await this.db
      .update(webhookEndpoints)
      .set({ consecutiveFailures: succeeded ? 0 : sql`${webhookEndpoints.consecutiveFailures} + 1` })
      .where(eq(webhookEndpoints.id, endpointId))
      .returning({ failures: webhookEndpoints.consecutiveFailures });
    return row?.failures ?? 0;
  }

  /** Records an attempt and what follows it: delivered, failed for good, or pending until `nextAttemptAt`. */
  async recordAttempt(
    id: string,
    attempt: DeliveryAttempt & { attempts: number; status: WebhookDeliveryRow['status']; nextAttemptAt: Date | null },
  ): Promise<void> {
    await this.db
      .update(webhookDeliveries)
      .set({
        status: attempt.status,
        attempts: attempt.attempts,
        lastStatusCode: attempt.statusCode,
        lastError: attempt.error,
        durationMs: attempt.durationMs,
        nextAttemptAt: attempt.nextAttemptAt,
      })
      .where(eq(webhookDeliveries.id, id));
  }

  async fail(id: string, reason: string): Promise<void> {
    await this.db.update(webhookDeliveries).set({ status: 'failed', nextAttemptAt: null, lastError: reason }).where(eq(webhookDeliveries.id, id));
  }

  /**
   * Turns the endpoint off and fails its pending deliveries; answers the endpoint only to the call that
   * turned it off, so its owner is told once.
   */
  async disableEndpoint(endpointId: string, reason: NonNullable<WebhookEndpointRow['disabledReason']>, why: string): Promise<WebhookEndpointRow | undefined> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .update(webhookEndpoints)
        .set({ enabled: false, disabledReason: reason })
        .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.enabled, true)))
        .returning();
      if (row) await failPending(tx, endpointId, why);
      return row;
    });
  }

  /** Pending deliveries whose attempt was due before `before` (their job may be lost), oldest first. */
  async overdue(before: Date, limit: number): Promise<string[]> {
    const rows = await this.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.status, 'pending'), lt(webhookDeliveries.nextAttemptAt, before)))
      .orderBy(asc(webhookDeliveries.nextAttemptAt))
      .limit(limit);
    return rows.map((r) => r.id);
  }

  /** Forgets finished deliveries created before `before`; returns how many. */
  async prune(before: Date): Promise<number> {
    const rows = await this.db
      .delete(webhookDeliveries)
      .where(and(ne(webhookDeliveries.status, 'pending'), lt(webhookDeliveries.createdAt, before)))
      .returning({ id: webhookDeliveries.id });
    return rows.length;
  }
}

function listening(accountId: string, type: WebhookEvent): SQL {
  return and(eq(webhookEndpoints.accountId, accountId), eq(webhookEndpoints.enabled, true), arrayContains(webhookEndpoints.events, [type]))!;
}
