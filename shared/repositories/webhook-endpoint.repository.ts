import { and, desc, eq } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { type WebhookEndpointRow, webhookDeliveries, webhookEndpoints } from '../db/integrations.schema.js';
import { insertWithinLimit } from './account-limit.js';
import type { Outcome } from './outcome.js';

export type NewWebhookEndpoint = Pick<WebhookEndpointRow, 'url' | 'events' | 'description' | 'secretSealed'>;
export type WebhookEndpointPatch = Partial<Pick<WebhookEndpointRow, 'url' | 'events' | 'description' | 'enabled'>>;

/** The owner's statements on webhook endpoints: every one takes the account's id. */
export class WebhookEndpointRepository {
  constructor(private readonly db: Database) {}

  /** Creates an endpoint unless the account holds `max` already. */
  async create(accountId: string, values: NewWebhookEndpoint, max: number): Promise<Outcome<WebhookEndpointRow, 'limit_reached'>> {
    return insertWithinLimit(this.db, accountId, webhookEndpoints.accountId, max, async (tx) => {
      const [row] = await tx
        .insert(webhookEndpoints)
        .values({ accountId, ...values })
        .returning();
      return row!;
    });
  }

  async list(accountId: string): Promise<WebhookEndpointRow[]> {
    return this.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.accountId, accountId)).orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id));
  }

  async findOwned(accountId: string, id: string): Promise<WebhookEndpointRow | undefined> {
    const [row] = await this.db
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.accountId, accountId), eq(webhookEndpoints.id, id)));
    return row;
  }

  /**
   * Turning an endpoint on starts its failure count afresh; turning it off (or on) clears the reason
   * the service gave. Its deliveries still pending fail with it when it goes off.
   */
  async update(accountId: string, id: string, patch: WebhookEndpointPatch): Promise<WebhookEndpointRow | undefined> {
    const switched = patch.enabled === undefined ? {} : { disabledReason: null, ...(patch.enabled ? { consecutiveFailures: 0 } : {}) };
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .update(webhookEndpoints)
        .set({ ...patch, ...switched })
        .where(and(eq(webhookEndpoints.accountId, accountId), eq(webhookEndpoints.id, id)))
        .returning();
      if (row && !row.enabled) await failPending(tx, row.id, 'the endpoint was turned off');
      return row;
    });
  }

  async rotateSecret(accountId: string, id: string, secretSealed: string): Promise<WebhookEndpointRow | undefined> {
    const [row] = await this.db
      .update(webhookEndpoints)
      .set({ secretSealed })
      .where(and(eq(webhookEndpoints.accountId, accountId), eq(webhookEndpoints.id, id)))
      .returning();
    return row;
  }

  /** Its deliveries go with it (cascade): a job still queued for one finds nothing and ends. */
  async delete(accountId: string, id: string): Promise<boolean> {
    const rows = await this.db
      .delete(webhookEndpoints)
      .where(and(eq(webhookEndpoints.accountId, accountId), eq(webhookEndpoints.id, id)))
      .returning({ id: webhookEndpoints.id });
    return rows.length === 1;
  }
}

type Executor = Pick<Database, 'update'>;

/** Ends an endpoint's pending deliveries as failed: nothing more is sent to it. */
export async function failPending(db: Executor, endpointId: string, reason: string): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ status: 'failed', nextAttemptAt: null, lastError: reason })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'pending')));
}
