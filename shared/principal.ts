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
}

export function principalOf(row: Pick<AccountRow, 'id' | 'username' | 'plan' | 'status'>): Principal {
  return { id: row.id, username: row.username, plan: row.plan, status: row.status };
}
