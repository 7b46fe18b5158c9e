import { index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from './columns.js';
import { accounts } from './schema.js';

// What other systems hold of an account: scoped access tokens (and, beside them, webhook endpoints).

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
