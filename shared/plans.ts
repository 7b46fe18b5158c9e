import type { Config } from './config.js';

export const PLAN_NAMES = ['free', 'pro'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface PlanLimits {
  maxFileSize: number;
  dailyLimit: number;
  monthlyStorageLimit: number;
  /** null = unlimited */
  maxFolders: number | null;
  folderKeys: boolean;
  customDomain: boolean;
}

const MB = 1024 * 1024;
const GB = 1024 * MB;

// File sizes and folder counts are the spec's Limits table; daily and storage limits are ours
// (the spec only says they are reported), documented in the README and overridable by config.
const DEFAULTS: Record<PlanName, PlanLimits> = {
  free: { maxFileSize: 200 * MB, dailyLimit: 100, monthlyStorageLimit: 5 * GB, maxFolders: 10, folderKeys: false, customDomain: false },
  pro: { maxFileSize: 512 * MB, dailyLimit: 2000, monthlyStorageLimit: 200 * GB, maxFolders: null, folderKeys: true, customDomain: true },
};
const ANONYMOUS_MAX_FILE_SIZE = 80 * MB;

export class Plans {
  private readonly limits: Record<PlanName, PlanLimits>;
  readonly anonymousMaxFileSize: number;

  constructor(overrides: Config['planOverrides']) {
    this.limits = {
      free: { ...DEFAULTS.free, ...defined(overrides.free) },
      pro: { ...DEFAULTS.pro, ...defined(overrides.pro) },
    };
    this.anonymousMaxFileSize = overrides.anonymous.maxFileSize ?? ANONYMOUS_MAX_FILE_SIZE;
  }

  of(plan: PlanName): PlanLimits {
    return this.limits[plan];
  }
}

export function isPlanName(value: string): value is PlanName {
  return (PLAN_NAMES as readonly string[]).includes(value);
}

function defined<T extends object>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Partial<T>;
}
