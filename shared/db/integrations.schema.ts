import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from './columns.js';
import { accounts } from './schema.js';

// What other systems hold of an account: scoped access tokens and webhook endpoints with their deliveries.

/** A personal access token: a name, the scopes it carries and the hash of its secret (shown once). */
export const accessTokens = pgTable(
  'access_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    scopes: text('scopes').array().notNull(),
    tokenHash: text('token_hash').notNull(),
    expiresAt: ts('expires_at'),
    // Written at most once a minute per token, so a busy uploader does not write on every request.
    lastUsedAt: ts('last_used_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('access_tokens_token_hash_uq').on(t.tokenHash), index('access_tokens_account_created_idx').on(t.accountId, t.createdAt)],
);

export type AccessTokenRow = typeof accessTokens.$inferSelect;

/** Where an account's events are sent (Standard Webhooks): the URL, the events it takes, its signing secret. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    description: text('description').notNull().default(''),
    events: text('events').array().notNull(),
    enabled: boolean('enabled').notNull().default(true),
    // Why the service turned it off: the receiver answered 410 (gone) or failed 20 times in a row.
    disabledReason: text('disabled_reason', { enum: ['gone', 'failing'] }),
    // Sealed, not hashed: the worker needs the secret itself to sign each delivery.
    secretSealed: text('secret_sealed').notNull(),
    // Failed attempts since its last success, whatever the delivery.
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [index('webhook_endpoints_account_idx').on(t.accountId)],
);

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

/** One event for one endpoint: the exact body every attempt sends, and how its attempts went. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    // The Standard Webhooks message id (`webhook-id`), the same on every attempt, and its job's id.
    id: text('id')
      .primaryKey()
      .default(sql`'msg_' || replace(gen_random_uuid()::text, '-', '')`),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventType: text('event_type').notNull(),
    body: text('body').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    durationMs: integer('duration_ms'),
    // When the next attempt is due while pending; null once delivered or failed.
    nextAttemptAt: ts('next_attempt_at').defaultNow(),
    createdAt: createdAt(),
  },
  (t) => [
    index('webhook_deliveries_endpoint_created_idx').on(t.endpointId, t.createdAt),
    // The sweep forgets old deliveries by age.
    index('webhook_deliveries_created_idx').on(t.createdAt),
    // The sweep's lookup of pending deliveries whose job may be lost.
    index('webhook_deliveries_pending_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
  ],
);

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
