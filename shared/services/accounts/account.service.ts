import { z } from 'zod';
import type { SecretBox } from '../../crypto.js';
import { randomHex, sha256 } from '../../crypto.js';
import type { AccountRow } from '../../db/schema.js';
import { AppError } from '../../errors.js';
import type { PlanName, Plans } from '../../plans.js';
import { type AccountUsage, type Principal, principalOf, usageSnapshotOf } from '../../principal.js';
import type { AccountOverview, AccountSummary, DashboardUser, Profile } from '../../contracts/account.contract.js';
import type { Settings, SettingsPatch } from '../../contracts/settings.contract.js';
import type { AccountRepository } from '../../repositories/account.repository.js';
import { secondsUntilNextUtcMonth, utcDay, utcMonth } from '../../time.js';
import { hashPassword } from './password.js';

// Host names an operator is likely to give machines of their own beside the site (api.example.com,
// www…): as usernames they would be subdomains of the site too.
const RESERVED_USERNAMES = new Set(['www', 'api', 'cdn', 'static', 'assets', 'mail', 'smtp', 'imap', 'ftp', 'ns1', 'ns2', 'mcp', 'oauth']);

// Usernames become subdomain labels ({username}.{site host}), so they follow DNS label rules.
export const usernameSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9](?:[a-z0-9-]{1,30}[a-z0-9])$/, 'username must be 3-32 letters, digits or inner hyphens')
  .refine((name) => !RESERVED_USERNAMES.has(name), 'this username is reserved');
export const passwordSchema = z.string().min(8, 'password must be at least 8 characters').max(256);
const emailSchema = z.union([z.email(), z.literal('')]);

const newAccountSchema = z.object({
  username: usernameSchema,
  password: passwordSchema,
  email: emailSchema.default(''),
  plan: z.enum(['free', 'pro']).default('free'),
});

/** Uploads charged today (UTC); the count resets when the day on the row is not today. */
export function todayCountOf(account: Pick<AccountRow, 'usageDay' | 'usageDayCount'>): number {
  return account.usageDay === utcDay() ? account.usageDayCount : 0;
}

function settingsOf(account: AccountRow): Settings {
  return { stripMetadata: account.stripMetadata, privateByDefault: account.privateByDefault };
}

/** A primary key: the prefix tells keys apart at a glance (folder keys start with fk_). */
function generateApiKey(): string {
  return `hfs_${randomHex(24)}`;
}

export class AccountService {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly plans: Plans,
    private readonly box: SecretBox,
    private readonly regenerationsPerMonth: number,
    /** labels of this deployment's own hosts under the site (see FileUrls.ownLabels) */
    private readonly ownLabels: readonly string[] = [],
    /** the account's custom domain and its status, for the profile */
    private readonly customDomainOf: (accountId: string) => Promise<{ domain: string; status: 'pending' | 'active' | 'failed' } | undefined> = async () => undefined,
  ) {}

  /** The admin CLI's and registration's way in; the input is checked here for both. */
  async create(input: z.input<typeof newAccountSchema>): Promise<{ account: Principal; apiKey: string }> {
    const parsed = newAccountSchema.safeParse(input);
    if (!parsed.success) throw AppError.badRequest(parsed.error.issues.map((i) => i.message).join('; '));
    const { username, password, email, plan } = parsed.data;
    if (this.ownLabels.includes(username)) throw AppError.badRequest('this username is reserved');
    const apiKey = generateApiKey();
    const created = await this.accounts.create({
      username,
      email,
      plan,
      passwordHash: await hashPassword(password),
      apiKeyHash: sha256(apiKey),
      apiKeySealed: this.box.encrypt(apiKey),
    });
    if (!created.ok) throw AppError.conflict('Username is already taken');
    return { account: principalOf(created.value), apiKey };
  }

  /** The account a primary key belongs to, or undefined for an unknown key. */
  async findByApiKey(apiKey: string): Promise<Principal | undefined> {
    return (await this.findWithUsageByApiKey(apiKey))?.principal;
  }

  /** The key's account and what it has used, from one lookup (an upload checks its limits with it). */
  async findWithUsageByApiKey(apiKey: string): Promise<{ principal: Principal; usage: AccountUsage } | undefined> {
    const row = await this.accounts.findByApiKeyHash(sha256(apiKey));
    return row && { principal: principalOf(row), usage: usageSnapshotOf(row) };
  }

  async getByUsername(username: string): Promise<Principal> {
    return principalOf(await this.rowByUsername(username));
  }

  limitsOf(account: Pick<AccountRow, 'plan'>) {
    const plan = this.plans.of(account.plan);
    return { dailyLimit: plan.dailyLimit, monthlyStorageLimit: plan.monthlyStorageLimit };
  }

  async setPlan(username: string, plan: PlanName): Promise<Principal> {
    const account = await this.rowByUsername(username);
    return principalOf((await this.accounts.setPlan(account.id, plan))!);
  }

  async ban(username: string, reason: string | undefined, expiresAt: Date | null = null): Promise<Principal> {
    const account = await this.rowByUsername(username);
    const banned = await this.accounts.update(account.id, {
      status: 'banned',
      banReason: reason ?? 'Banned by an administrator',
      bannedAt: new Date(),
      banExpiresAt: expiresAt,
    });
    return principalOf(banned!);
  }

  async unban(username: string): Promise<Principal> {
    const account = await this.rowByUsername(username);
    return principalOf((await this.accounts.update(account.id, { status: 'active', banReason: null, bannedAt: null, banExpiresAt: null }))!);
  }

  /**
   * Issues a new primary key; the old one stops working on the very next request. `replacingKey` is
   * the key the request authenticated with, if any: of concurrent requests carrying it only the
   * first rotates, and the rest find it revoked (401), as they would a moment later.
   */
  async regenerateApiKey(accountId: string, replacingKey?: string) {
    const apiKey = generateApiKey();
    const replacingHash = replacingKey === undefined ? undefined : sha256(replacingKey);
    const account = await this.accounts.rotateApiKey(
      accountId,
      { hash: sha256(apiKey), sealed: this.box.encrypt(apiKey) },
      utcMonth(),
      this.regenerationsPerMonth,
      replacingHash,
    );
    if (!account) {
      const current = await this.accounts.findById(accountId);
      if (!current || (replacingHash !== undefined && current.apiKeyHash !== replacingHash)) {
        throw AppError.unauthorized('Invalid API key');
      }
      throw AppError.tooManyRequests(
        `The API key can be regenerated ${this.regenerationsPerMonth} times a month`,
        secondsUntilNextUtcMonth(),
      );
    }
    return { apiKey, limits: this.limitsOf(account), regenerationInfo: this.regenerationInfo(account) };
  }

  regenerationInfo(account: AccountRow) {
    const used = account.keyRegenMonth === utcMonth() ? account.keyRegenCount : 0;
    return {
      remainingThisMonth: Math.max(0, this.regenerationsPerMonth - used),
      lastRegeneration: account.keyRegeneratedAt?.toISOString() ?? null,
    };
  }

  /** The primary key itself (for the configs that carry it). */
  async apiKeyOf(principal: Principal): Promise<string> {
    return this.box.decrypt((await this.row(principal.id)).apiKeySealed);
  }

  /** The profile of GET /api/auth/me: every field the spec lists for it (the key only when `withApiKey`). */
  async profile(principal: Principal, { withApiKey = true } = {}): Promise<Profile> {
    const [account, customDomain] = await Promise.all([this.row(principal.id), this.customDomainOf(principal.id)]);
    const plan = this.plans.of(account.plan);
    return {
      ...this.summary(account),
      ...(withApiKey ? {} : { apiKey: null }),
      status: account.status,
      usage: this.usageOf(account),
      defaultUploadFolderId: account.defaultUploadFolderId,
      features: { subdomain: true, shortUrl: true, folders: plan.maxFolders !== 0 },
      customDomain: customDomain?.domain ?? null,
      customDomainStatus: customDomain?.status ?? 'none',
    };
  }

  async settings(principal: Principal): Promise<Settings> {
    return settingsOf(await this.row(principal.id));
  }

  /** Sets any subset of the settings (already checked by settingsPatchSchema) and answers them all. */
  async updateSettings(principal: Principal, changes: SettingsPatch): Promise<Settings> {
    const account = Object.keys(changes).length > 0 ? await this.accounts.update(principal.id, changes) : await this.row(principal.id);
    if (!account) throw AppError.notFound('Account not found');
    return settingsOf(account);
  }

  /** What an assistant may know of the account: no key, no email, nothing to sign in with. */
  async overview(principal: Principal): Promise<AccountOverview> {
    const account = await this.row(principal.id);
    const plan = this.plans.of(account.plan);
    const uploadsToday = todayCountOf(account);
    return {
      username: account.username,
      plan: account.plan,
      limits: { ...this.limitsOf(account), maxFileSizeBytes: plan.maxFileSize, maxFolders: plan.maxFolders },
      usage: { uploadsToday, storageUsedBytes: account.storageUsed, files: account.fileCount },
      remaining: {
        uploadsToday: Math.max(0, plan.dailyLimit - uploadsToday),
        storageBytes: Math.max(0, plan.monthlyStorageLimit - account.storageUsed),
      },
    };
  }

  /** The user object of login responses (and the base of the profile). */
  summary(account: AccountRow): AccountSummary {
    return {
      id: account.id,
      username: account.username,
      email: account.email,
      apiKey: this.box.decrypt(account.apiKeySealed),
      createdAt: account.createdAt.toISOString(),
      plan: account.plan,
      uploadsFolder: account.username,
      limits: this.limitsOf(account),
    };
  }

  /** The user object of the dashboard: adds today's usage, connections and ban details. */
  dashboardUser(account: AccountRow): DashboardUser {
    const todayCount = todayCountOf(account);
    const { dailyLimit } = this.limitsOf(account);
    const connection = (username: string | null) => ({ connected: username !== null, username });
    return {
      ...this.summary(account),
      status: account.status,
      usage: { ...this.usageOf(account), todayCount, remaining: Math.max(0, dailyLimit - todayCount) },
      connections: { discord: connection(account.discordUsername), google: connection(account.googleUsername) },
      defaultUploadFolderId: account.defaultUploadFolderId,
      banInfo: this.banInfoOf(account),
    };
  }

  banInfoOf(account: AccountRow) {
    if (account.status !== 'banned') return null;
    return {
      reason: account.banReason,
      bannedAt: account.bannedAt?.toISOString() ?? null,
      expiresAt: account.banExpiresAt?.toISOString() ?? null,
    };
  }

  usageOf(account: AccountRow) {
    return {
      count: account.uploadCount,
      lastUsed: account.lastUsedAt.toISOString(),
      monthlyStorageUsed: account.storageUsed,
      currentMonth: utcMonth(),
    };
  }

  async uploadsToday(accountId: string): Promise<number> {
    return todayCountOf(await this.row(accountId));
  }

  private async row(accountId: string): Promise<AccountRow> {
    const account = await this.accounts.findById(accountId);
    if (!account) throw AppError.notFound('Account not found');
    return account;
  }

  private async rowByUsername(username: string): Promise<AccountRow> {
    const account = await this.accounts.findByUsername(username);
    if (!account) throw AppError.notFound('Account not found');
    return account;
  }
}
