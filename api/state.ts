import type { ParameterizedContext } from 'koa';
import type { AccountRow } from '../shared/db/schema.js';
import type { Uploader } from '../shared/services/upload.service.js';

/** What middleware leaves on ctx.state for the routes after it. */
export interface AppState {
  requestId: string;
  /** what the request metrics call a request no router matched (e.g. a file on a subdomain) */
  route?: string;
  account?: AccountRow;
  /** set by the upload auth middleware */
  uploader?: Uploader;
}

export type AppContext = ParameterizedContext<AppState>;

/** The account the auth middleware resolved; only call behind it. */
export function accountOf(ctx: AppContext): AccountRow {
  const account = ctx.state.account;
  if (!account) throw new Error('accountOf() used on a route without authentication');
  return account;
}

export function uploaderOf(ctx: AppContext): Uploader {
  const uploader = ctx.state.uploader;
  if (!uploader) throw new Error('uploaderOf() used on a route without upload auth');
  return uploader;
}
