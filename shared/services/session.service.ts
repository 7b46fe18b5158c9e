import { randomBytes } from 'node:crypto';
import { sha256 } from '../crypto.js';
import type { AccountRow } from '../db/schema.js';
import type { SessionRepository } from '../repositories/session.repository.js';

export const SESSION_COOKIE = 'hfs_session';
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** Opaque session tokens; the database keeps only their hash. */
export class SessionService {
  constructor(private readonly sessions: SessionRepository) {}

  async create(account: AccountRow, userAgent: string | null): Promise<{ token: string; expiresAt: Date }> {
    const token = `hss_${randomBytes(32).toString('base64url')}`;
    const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
    await this.sessions.create(account.id, sha256(token), expiresAt, userAgent?.slice(0, 300) ?? null);
    return { token, expiresAt };
  }

  async accountOf(token: string): Promise<AccountRow | undefined> {
    return this.sessions.findAccount(sha256(token));
  }

  async end(token: string): Promise<void> {
    await this.sessions.delete(sha256(token));
  }
}
