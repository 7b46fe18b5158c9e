import { randomBytes } from 'node:crypto';
import { sha256 } from '../../crypto.js';
import { type Principal, principalOf } from '../../principal.js';
import type { SessionRepository } from '../../repositories/session.repository.js';

export const SESSION_COOKIE = 'hfs_session';
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** Opaque session tokens; the database keeps only their hash. */
export class SessionService {
  constructor(private readonly sessions: SessionRepository) {}

  async create(accountId: string, userAgent: string | null): Promise<{ token: string; expiresAt: Date }> {
    const token = `hss_${randomBytes(32).toString('base64url')}`;
    const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
    await this.sessions.create(accountId, sha256(token), expiresAt, userAgent?.slice(0, 300) ?? null);
    return { token, expiresAt };
  }

  /** Who a session token signs in, or undefined when it is unknown or expired. */
  async principalOf(token: string): Promise<Principal | undefined> {
    const account = await this.sessions.findAccount(sha256(token));
    return account && principalOf(account);
  }

  async end(token: string): Promise<void> {
    await this.sessions.delete(sha256(token));
  }
}
