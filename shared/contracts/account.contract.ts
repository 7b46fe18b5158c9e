import { z } from 'zod';
import { bytes, count, isoDate, uuid } from './common.contract.js';

const planName = z.enum(['free', 'pro']);
export const accountStatusSchema = z.enum(['active', 'banned']);

export const limitsSchema = z.object({ dailyLimit: count, monthlyStorageLimit: bytes.meta({ description: 'bytes' }) }).meta({ id: 'Limits' });
export const usageSchema = z.object({ count, lastUsed: isoDate, monthlyStorageUsed: bytes, currentMonth: z.string().regex(/^\d{4}-\d{2}$/) });

/** The user object of login and registration answers, and the base of the others. */
export const accountSummarySchema = z
  .object({
    id: uuid,
    username: z.string(),
    email: z.string().meta({ description: 'Empty when none was given' }),
    apiKey: z.string().meta({ description: 'The primary key (hfs_…)', example: 'hfs_7e93f6b4f5be3fc447fbf084d47fe02ade0b95f21dafbce0' }),
    createdAt: isoDate,
    plan: planName,
    uploadsFolder: z.string(),
    limits: limitsSchema,
  })
  .meta({ id: 'AccountSummary' });
export type AccountSummary = z.output<typeof accountSummarySchema>;

/** GET /api/auth/me: every field the spec lists for it. */
export const profileSchema = accountSummarySchema
  .extend({
    apiKey: z.string().nullable().meta({ description: 'The primary key (hfs_…); null when asked with a personal access token' }),
    status: accountStatusSchema,
    usage: usageSchema,
    defaultUploadFolderId: uuid.nullable(),
    features: z.object({ subdomain: z.boolean(), shortUrl: z.boolean(), folders: z.boolean() }),
    customDomain: z.string().nullable(),
    customDomainStatus: z.enum(['none', 'pending', 'active', 'failed']),
  })
  .meta({ id: 'Profile' });
export type Profile = z.output<typeof profileSchema>;

const connectionState = z.object({ connected: z.boolean(), username: z.string().nullable() });
/** The user object of the dashboard: today's usage, connections and ban details. */
export const dashboardUserSchema = accountSummarySchema.extend({
  status: accountStatusSchema,
  usage: usageSchema.extend({ todayCount: count, remaining: count }),
  connections: z.object({ discord: connectionState, google: connectionState }),
  defaultUploadFolderId: uuid.nullable(),
  banInfo: z.object({ reason: z.string().nullable(), bannedAt: isoDate.nullable(), expiresAt: isoDate.nullable() }).nullable(),
});
export type DashboardUser = z.output<typeof dashboardUserSchema>;

/** What an assistant may know of the account (get_account): no key, no email, nothing to sign in with. */
export const accountOverviewSchema = z.object({
  username: z.string(),
  plan: planName,
  limits: z.object({ dailyLimit: count, monthlyStorageLimit: bytes, maxFileSizeBytes: bytes, maxFolders: count.nullable() }),
  usage: z.object({ uploadsToday: count, storageUsedBytes: bytes, files: count }),
  remaining: z.object({ uploadsToday: count, storageBytes: bytes }),
});
export type AccountOverview = z.output<typeof accountOverviewSchema>;

export const regeneratedKeySchema = z
  .object({ apiKey: z.string(), limits: limitsSchema, regenerationInfo: z.object({ remainingThisMonth: count, lastRegeneration: isoDate.nullable() }) })
  .meta({ id: 'RegeneratedKey' });
