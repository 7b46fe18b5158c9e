import type Provider from 'oidc-provider';
import type { Principal } from '../../shared/principal.js';
import type { ConnectionService } from '../../shared/services/assistants/connection.service.js';
import { type Scope, scopesIn } from '../../shared/scopes.js';

/** Who an MCP request acts for: the account and what its assistant was allowed — never a key. */
export interface McpPrincipal {
  account: Principal;
  clientId: string;
  scopes: Scope[];
}

// oidc-provider's opaque tokens are base64url ids; anything else is not worth a query.
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,256}$/;

/**
 * Checks an access token as the MCP endpoint receives it, on every request: live, issued for the
 * MCP resource, its grant still there (a disconnect deletes it), its account not banned.
 */
export class AccessTokenVerifier {
  constructor(
    private readonly provider: Provider,
    private readonly resource: string,
    private readonly connections: ConnectionService,
  ) {}

  async verify(token: string): Promise<McpPrincipal | undefined> {
    if (!TOKEN_SHAPE.test(token)) return undefined;
    const accessToken = await this.provider.AccessToken.find(token);
    if (!accessToken || accessToken.isExpired) return undefined;
    const { accountId, clientId, grantId, aud } = accessToken;
    if (aud !== this.resource || !accountId || !clientId || !grantId) return undefined;
    // The grant (a disconnect deletes it) and the account, in one query.
    const account = await this.connections.principalFor(accountId, clientId, grantId);
    if (!account) return undefined;
    return { account, clientId, scopes: scopesIn(accessToken.scope) };
  }
}
