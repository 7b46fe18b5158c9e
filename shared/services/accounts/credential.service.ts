import { AppError } from '../../errors.js';
import type { AccountUsage, Principal } from '../../principal.js';
import type { Scope } from '../../scopes.js';
import type { AccessTokenService } from './access-token.service.js';
import { isAccessToken } from './access-token.service.js';
import type { AccountService } from './account.service.js';
import type { SessionService } from './session.service.js';

/** An account's credential as a request presented it. */
export interface Credential {
  principal: Principal;
  /** what the account had used, when the lookup read it */
  usage?: AccountUsage;
  /** a personal access token's scopes; absent for the primary key or a session, which may do anything */
  scopes?: readonly Scope[];
}

/**
 * Turns what a request carries into whose it is: the primary key or a personal access token (in
 * x-api-key, or a token as `Authorization: Bearer`), or a session token. Folder keys are the upload
 * path's own (UploadAuthService).
 */
export class CredentialService {
  constructor(
    private readonly accounts: AccountService,
    private readonly tokens: AccessTokenService,
    private readonly sessions: SessionService,
  ) {}

  /** An x-api-key value: a personal access token or the primary key; undefined when unknown. */
  async byKey(key: string): Promise<Credential | undefined> {
    if (isAccessToken(key)) return this.tokens.resolve(key);
    return this.accounts.findWithUsageByApiKey(key);
  }

  /** A bearer token: a personal access token or a session token; undefined when unknown or ended. */
  async byBearer(token: string): Promise<Credential | undefined> {
    if (isAccessToken(token)) return this.tokens.resolve(token);
    const principal = await this.sessions.principalOf(token);
    return principal && { principal };
  }
}

/** A token must carry `scope`; the primary key and sessions carry every scope. */
export function assertScope(credential: Pick<Credential, 'scopes'>, scope: Scope): void {
  if (credential.scopes && !credential.scopes.includes(scope)) throw AppError.missingScope(scope);
}
