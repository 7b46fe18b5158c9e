import { sql } from 'drizzle-orm';
import { EXPIRY_VALUES } from '../contracts/values.js';
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

import { createdAt, ts } from './columns.js';

export const accounts = pgTable(
  'accounts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    username: text('username').notNull(),
    email: text('email').notNull().default(''),
    passwordHash: text('password_hash'),
    plan: text('plan', { enum: ['free', 'pro'] }).notNull().default('free'),
    status: text('status', { enum: ['active', 'banned'] }).notNull().default('active'),
    banReason: text('ban_reason'),
    // The account's custom domain while it is active (custom_domains holds its configuration).
    customDomain: text('custom_domain'),
    bannedAt: ts('banned_at'),
    banExpiresAt: ts('ban_expires_at'),
    apiKeyHash: text('api_key_hash').notNull(),
    apiKeySealed: text('api_key_sealed').notNull(),
    keyRegenMonth: text('key_regen_month'),
    keyRegenCount: integer('key_regen_count').notNull().default(0),
    keyRegeneratedAt: ts('key_regenerated_at'),
    defaultUploadFolderId: uuid('default_upload_folder_id').references((): AnyPgColumn => folders.id, {
      onDelete: 'set null',
    }),
    urlFormat: text('url_format', { enum: ['subdomain', 'short', 'custom'] }).notNull().default('subdomain'),
    uploadCount: integer('upload_count').notNull().default(0),
    // Today's upload count lives on the account row: the auth lookup already has it, and one
    // conditional UPDATE charges it with the storage.
    usageDay: date('usage_day', { mode: 'string' }),
    usageDayCount: integer('usage_day_count').notNull().default(0),
    // Bytes of every file the account stores now; reported as usage.monthlyStorageUsed.
    storageUsed: bigint('storage_used', { mode: 'number' }).notNull().default(0),
    // Files the account holds now, kept with storageUsed: the dashboard's totalUserFiles without
    // counting a hundred thousand rows on every page.
    fileCount: integer('file_count').notNull().default(0),
    lastUsedAt: ts('last_used_at').notNull().defaultNow(),
    discordUsername: text('discord_username'),
    googleUsername: text('google_username'),
    // Account settings (GET/PATCH /api/user/settings): strip location and camera metadata from
    // uploads, and make new uploads private.
    stripMetadata: boolean('strip_metadata').notNull().default(true),
    privateByDefault: boolean('private_by_default').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('accounts_username_lower_uq').on(sql`lower(${t.username})`),
    uniqueIndex('accounts_api_key_hash_uq').on(t.apiKeyHash),
  ],
);

export const folders = pgTable(
  'folders',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    // Set while the folder is shared as an album: its public id (128 random bits) and since when.
    shareId: text('share_id'),
    sharedAt: ts('shared_at'),
    // Files in the folder now, kept by the trigger files_folder_counts on files: every listing
    // shows the counts, and counting a folder of 100k files each time costs more than the listing.
    fileCount: integer('file_count').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('folders_account_name_uq').on(t.accountId, sql`lower(${t.name})`),
    uniqueIndex('folders_share_id_uq').on(t.shareId),
  ],
);

export const folderKeys = pgTable(
  'folder_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    folderId: uuid('folder_id')
      .notNull()
      .references(() => folders.id, { onDelete: 'cascade' }),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    keyHash: text('key_hash').notNull(),
    keySealed: text('key_sealed').notNull(),
    lastUsedAt: ts('last_used_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('folder_keys_folder_uq').on(t.folderId), uniqueIndex('folder_keys_key_hash_uq').on(t.keyHash)],
);

export const files = pgTable(
  'files',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    // null for anonymous uploads from the website
    accountId: uuid('account_id').references(() => accounts.id, { onDelete: 'cascade' }),
    folderId: uuid('folder_id').references(() => folders.id, { onDelete: 'set null' }),
    filename: text('filename').notNull(),
    originalName: text('original_name').notNull(),
    objectKey: text('object_key').notNull(),
    shortCode: text('short_code').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    // SHA-256 (hex) of the stored bytes, computed while they streamed in; null for files stored before it was kept.
    sha256: text('sha256'),
    mimeType: text('mime_type').notNull(),
    source: text('source').notNull(),
    urlFormat: text('url_format', { enum: ['subdomain', 'short', 'custom', 'standard', 'anonymous'] }).notNull(),
    isPrivate: boolean('is_private').notNull().default(false),
    expiresAt: ts('expires_at'),
    expiry: text('expiry', { enum: EXPIRY_VALUES }),
    deletionTokenHash: text('deletion_token_hash').notNull(),
    moderationVerdict: text('moderation_verdict', { enum: ['allow', 'soft_flag', 'hard_block'] }),
    moderationScore: integer('moderation_score'),
    moderatedAt: ts('moderated_at'),
    // Set when an administrator released a flagged or quarantined file.
    moderationReviewedAt: ts('moderation_reviewed_at'),
    quarantined: boolean('quarantined').notNull().default(false),
    // Set once the current content's thumbnails are stored (beside its object); the small one's size
    // lets pages reserve its box before it loads.
    thumbnailAt: ts('thumbnail_at'),
    thumbnailWidth: integer('thumbnail_width'),
    thumbnailHeight: integer('thumbnail_height'),
    // Counts privacy changes: thumbnail URLs carry it, so copies cached while public never outlive publicity.
    privacyVersion: integer('privacy_version').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: ts('updated_at'),
  },
  (t) => [
    uniqueIndex('files_account_filename_uq').on(t.accountId, t.filename),
    uniqueIndex('files_anonymous_filename_uq').on(t.filename).where(sql`${t.accountId} is null`),
    uniqueIndex('files_short_code_uq').on(t.shortCode),
    // Listings in each order (newest, size, names; by filename through the unique index above),
    // ending in the id that breaks ties: a page starts at a position found in the index alone, and
    // a cursor is a range of it.
    index('files_account_created_id_idx').on(t.accountId, t.createdAt, t.id),
    index('files_account_size_id_idx').on(t.accountId, t.size, t.id),
    index('files_account_original_id_idx').on(t.accountId, t.originalName, t.id),
    index('files_account_folder_created_id_idx').on(t.accountId, t.folderId, t.createdAt, t.id),
    // Substring search on both names (ILIKE '%q%') through trigrams. The names are joined by a
    // control character that no name and no search term contains, so a match never spans both.
    index('files_search_trgm_idx').using('gin', sql`(${t.filename} || E'\\x01' || ${t.originalName}) gin_trgm_ops`),
    index('files_folder_idx').on(t.folderId),
    index('files_deletion_token_idx').on(t.deletionTokenHash),
    // The storage reconciliation asks which of 500 listed objects a row names, hourly.
    index('files_object_key_idx').on(t.objectKey),
    index('files_expires_idx').on(t.expiresAt).where(sql`${t.expiresAt} is not null`),
    // Content not judged yet, for the sweep that re-queues moderation checks that were lost.
    index('files_unjudged_idx').on(t.id).where(sql`${t.moderatedAt} is null`),
    // The review list: flagged or blocked content, and files held in quarantine while new content
    // awaits its verdict.
    index('files_flagged_idx')
      .on(t.moderatedAt)
      .where(sql`(${t.moderationVerdict} in ('soft_flag', 'hard_block') or ${t.quarantined}) and ${t.moderationReviewedAt} is null`),
  ],
);

export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    userAgent: text('user_agent'),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [uniqueIndex('sessions_token_hash_uq').on(t.tokenHash), index('sessions_account_idx').on(t.accountId)],
);

/** A link where someone without an account drops one file for the account that asked (single use). */
export const dropLinks = pgTable(
  'drop_links',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    folderId: uuid('folder_id').references(() => folders.id, { onDelete: 'set null' }),
    // The token in the link is a capability: stored hashed for lookup and sealed to show the link again.
    tokenHash: text('token_hash').notNull(),
    tokenSealed: text('token_sealed').notNull(),
    note: text('note'),
    maxSizeBytes: bigint('max_size_bytes', { mode: 'number' }),
    status: text('status', { enum: ['pending', 'received', 'cancelled'] })
      .notNull()
      .default('pending'),
    fileId: uuid('file_id').references(() => files.id, { onDelete: 'set null' }),
    // When a drop took the link; a claim that never got its file (a crash) lapses after a while.
    claimedAt: ts('claimed_at'),
    receivedAt: ts('received_at'),
    expiresAt: ts('expires_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('drop_links_token_hash_uq').on(t.tokenHash), index('drop_links_account_created_idx').on(t.accountId, t.createdAt)],
);

/** A link that shares one file or one folder (private files included), with optional limits. */
export const shareLinks = pgTable(
  'share_links',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    // Exactly one target; the link goes with its target.
    fileId: uuid('file_id').references(() => files.id, { onDelete: 'cascade' }),
    folderId: uuid('folder_id').references(() => folders.id, { onDelete: 'cascade' }),
    // The token is HMAC(SECRET_KEY, nonce): the row alone never yields it; lookups go by its SHA-256.
    tokenHash: text('token_hash').notNull(),
    tokenNonce: text('token_nonce').notNull(),
    passwordHash: text('password_hash'),
    views: integer('views').notNull().default(0),
    maxViews: integer('max_views'),
    expiresAt: ts('expires_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('share_links_token_hash_uq').on(t.tokenHash),
    index('share_links_account_created_idx').on(t.accountId, t.createdAt),
    check('share_links_one_target', sql`(${t.fileId} is null) <> (${t.folderId} is null)`),
  ],
);
export type ShareLinkRow = typeof shareLinks.$inferSelect;

export const notifications = pgTable(
  'notifications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    title: text('title').notNull(),
    message: text('message').notNull(),
    read: boolean('read').notNull().default(false),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    broadcastId: uuid('broadcast_id'),
    // Monotonic per database: the SSE event id, so Last-Event-ID replay has a total order.
    seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity(),
    createdAt: createdAt(),
  },
  (t) => [
    index('notifications_account_seq_idx').on(t.accountId, t.seq),
    uniqueIndex('notifications_broadcast_account_uq').on(t.broadcastId, t.accountId),
  ],
);

export const polls = pgTable('polls', {
  id: uuid('id').primaryKey().defaultRandom(),
  question: text('question').notNull(),
  description: text('description').notNull().default(''),
  status: text('status', { enum: ['active', 'closed'] }).notNull().default('active'),
  targetType: text('target_type', { enum: ['all', 'user'] }).notNull().default('all'),
  targetAccountId: uuid('target_account_id').references(() => accounts.id, { onDelete: 'cascade' }),
  totalVotes: integer('total_votes').notNull().default(0),
  closesAt: ts('closes_at'),
  closedAt: ts('closed_at'),
  createdAt: createdAt(),
});

export const pollOptions = pgTable(
  'poll_options',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    pollId: uuid('poll_id')
      .notNull()
      .references(() => polls.id, { onDelete: 'cascade' }),
    text: text('text').notNull(),
    position: integer('position').notNull(),
    voteCount: integer('vote_count').notNull().default(0),
  },
  (t) => [index('poll_options_poll_idx').on(t.pollId)],
);

export const pollVotes = pgTable(
  'poll_votes',
  {
    pollId: uuid('poll_id')
      .notNull()
      .references(() => polls.id, { onDelete: 'cascade' }),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    optionId: uuid('option_id')
      .notNull()
      .references(() => pollOptions.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  // One vote per account per poll, enforced by the database.
  (t) => [primaryKey({ columns: [t.pollId, t.accountId] })],
);

export const customDomains = pgTable(
  'custom_domains',
  {
    accountId: uuid('account_id')
      .primaryKey()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    status: text('status', { enum: ['pending', 'active', 'failed'] }).notNull().default('pending'),
    txtRecordName: text('txt_record_name').notNull(),
    txtRecordValue: text('txt_record_value').notNull(),
    sslValidationRecords: jsonb('ssl_validation_records').$type<{ txt_name: string; txt_value: string }[]>().notNull().default([]),
    dnsChecks: jsonb('dns_checks').$type<Record<string, boolean>>().notNull().default({}),
    providerStatus: text('provider_status').notNull().default('pending'),
    sslStatus: text('ssl_status').notNull().default('pending'),
    acmeState: jsonb('acme_state').$type<Record<string, unknown>>(),
    certificatePem: text('certificate_pem'),
    privateKeySealed: text('private_key_sealed'),
    certificateExpiresAt: ts('certificate_expires_at'),
    lastCheckedAt: ts('last_checked_at'),
    // What the last check saw of each record (and what stood in the way), for the owner to compare.
    lastCheck: jsonb('last_check').$type<{ records: unknown[]; problems: string[] }>(),
    nextCheckAt: ts('next_check_at'),
    verifiedAt: ts('verified_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('custom_domains_domain_uq').on(sql`lower(${t.domain})`)],
);

/** The ACME account of the service at each CA directory: its key, sealed with SECRET_KEY. */
export const acmeAccounts = pgTable('acme_accounts', {
  directoryUrl: text('directory_url').primaryKey(),
  keySealed: text('key_sealed').notNull(),
  createdAt: createdAt(),
});

/**
 * The answer of a finished resumable (tus) upload, for its uploader's HEAD and GET …/result: kept in
 * the database, as a Redis flush must not lose it. Sealed, as it carries the file's deletion token.
 */
export const tusResults = pgTable(
  'tus_results',
  {
    // Text, not uuid: any id in a request path is looked up without a cast error.
    uploadId: text('upload_id').primaryKey(),
    // The signed owner tag of the upload (an account, or one anonymous visitor).
    owner: text('owner').notNull(),
    resultSealed: text('result_sealed').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('tus_results_created_idx').on(t.createdAt)],
);

export type AccountRow = typeof accounts.$inferSelect;
export type FileRow = typeof files.$inferSelect;
export type FolderRow = typeof folders.$inferSelect;
export type FolderKeyRow = typeof folderKeys.$inferSelect;
