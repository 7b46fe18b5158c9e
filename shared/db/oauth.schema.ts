import { index, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { ts } from './columns.js';
import { accounts } from './schema.js';

// The OAuth server's tables (oidc-provider's models, and the assistants an account connected).

export const oauthModels = pgTable(
  'oauth_models',
  {
    kind: text('kind').notNull(),
    id: text('id').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    grantId: text('grant_id'),
    userCode: text('user_code'),
    uid: text('uid'),
    expiresAt: ts('expires_at'),
    consumedAt: ts('consumed_at'),
    // Set on grants only: whose they are and for which client, so a connection's grants are found at once.
    accountId: text('account_id'),
    clientId: text('client_id'),
  },
  (t) => [
    primaryKey({ columns: [t.kind, t.id] }),
    index('oauth_models_grant_idx').on(t.grantId),
    index('oauth_models_uid_idx').on(t.uid),
    index('oauth_models_account_client_idx').on(t.accountId, t.clientId),
  ],
);

/** An assistant (OAuth client) the account connected: what the dashboard's settings and the connections API list. */
export const oauthConnections = pgTable(
  'oauth_connections',
  {
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    // As the client described itself at the last consent (a metadata document may change later).
    clientName: text('client_name'),
    clientUri: text('client_uri'),
    connectedAt: ts('connected_at').notNull().defaultNow(),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.clientId] })],
);

export type OAuthConnectionRow = typeof oauthConnections.$inferSelect;
