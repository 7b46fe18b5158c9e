import type { AccountRow } from './db/schema.js';

/**
 * Who a request acts for, as authentication found it: what every service may rely on without a
 * query. Anything else of the account (usage, URL style, default folder, secrets) the service that
 * needs it loads through its repository, so no password hash or sealed key travels with a request.
 */
export interface Principal {
  id: string;
  username: string;
  plan: AccountRow['plan'];
  status: AccountRow['status'];
  /** the active custom domain its custom-style links use, if any */
  customDomain: string | null;
  /** the account's setting every upload follows (read with the account, so an upload adds no query) */
  stripMetadata: boolean;
}

type PrincipalColumns = 'id' | 'username' | 'plan' | 'status' | 'customDomain' | 'stripMetadata';

export function principalOf(row: Pick<AccountRow, PrincipalColumns>): Principal {
  const { id, username, plan, status, customDomain, stripMetadata } = row;
  return { id, username, plan, status, customDomain, stripMetadata };
}

/** What an account has used of its limits: storage, and uploads on the day `usageDay`. */
export type AccountUsage = Pick<AccountRow, 'storageUsed' | 'usageDay' | 'usageDayCount'>;

/** The usage a row read for another purpose (a key lookup) holds. */
export function usageSnapshotOf(row: AccountUsage): AccountUsage {
  return { storageUsed: row.storageUsed, usageDay: row.usageDay, usageDayCount: row.usageDayCount };
}
