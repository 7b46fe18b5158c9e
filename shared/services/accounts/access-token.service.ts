import { randomBase62, sha256 } from '../../crypto.js';
import type { AccessTokenRow } from '../../db/integrations.schema.js';
import { type AccessToken, type CreateAccessToken, type NewAccessToken } from '../../contracts/access-token.contract.js';
import { AppError } from '../../errors.js';
import { type AccountUsage, type Principal, principalOf, usageSnapshotOf } from '../../principal.js';
import type { AccessTokenRepository } from '../../repositories/access-token.repository.js';
import type { Scope } from '../../scopes.js';
import { isId } from '../folders/folder.service.js';

export const ACCESS_TOKEN_PREFIX = 'hfs_pat_';
export const MAX_ACCESS_TOKENS = 50;
// lastUsedAt is a hint for the owner: written at most once a minute per token.
const TOUCH_EVERY_MS = 60_000;

/** What a live token stands for: its account (as a key lookup finds it) and what it may do. */
export interface TokenGrant {
  principal: Principal;
  usage: AccountUsage;
  scopes: Scope[];
}

function recordOf(row: AccessTokenRow): AccessToken {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes as Scope[],
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}

/**
 * Personal access tokens: named, scoped, optionally expiring credentials for uploaders, scripts and
 * CI jobs, so none of them needs the primary key. Only the hash is stored, and every request looks
 * the token up, so a revocation holds on every process at once.
 */
export class AccessTokenService {
  constructor(private readonly tokens: AccessTokenRepository) {}

  async create(account: Principal, input: CreateAccessToken): Promise<NewAccessToken> {
    const token = `${ACCESS_TOKEN_PREFIX}${randomBase62(43)}`;
    const expiresAt = input.expiresIn === undefined ? null : new Date(Date.now() + input.expiresIn * 1000);
    const outcome = await this.tokens.create(account.id, { name: input.name, scopes: input.scopes, tokenHash: sha256(token), expiresAt }, MAX_ACCESS_TOKENS);
    if (!outcome.ok) throw AppError.badRequest(`An account holds at most ${MAX_ACCESS_TOKENS} access tokens; revoke one first`);
    return { ...recordOf(outcome.value), token };
  }

  /** Newest first, without secrets. */
  async list(account: Principal): Promise<AccessToken[]> {
    return (await this.tokens.list(account.id)).map(recordOf);
  }

  async revoke(account: Principal, id: string): Promise<void> {
    if (!isId(id) || !(await this.tokens.delete(account.id, id))) throw AppError.notFound('Access token not found');
  }

  /** The grant of a live token; undefined for an unknown, revoked or expired one. */
  async resolve(token: string): Promise<TokenGrant | undefined> {
    const found = await this.tokens.findLive(sha256(token));
    if (!found) return undefined;
    // The row says when it was last noted: within the minute, no write at all.
    const { lastUsedAt } = found.token;
    if (!lastUsedAt || Date.now() - lastUsedAt.getTime() >= TOUCH_EVERY_MS) await this.tokens.touch(found.token.id);
    return { principal: principalOf(found.account), usage: usageSnapshotOf(found.account), scopes: found.token.scopes as Scope[] };
  }
}

export function isAccessToken(credential: string): boolean {
  return credential.startsWith(ACCESS_TOKEN_PREFIX);
}
