import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';
import type { OAuthModelRepository, StoredOAuthModel } from '../../repositories/oauth-model.repository.js';

/**
 * The models whose rows a grant revocation removes (oidc-provider's own memory adapter indexes the
 * same ones). An Interaction also carries a grantId but must outlive a revoked token.
 */
const GRANT_BOUND = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest', 'PreAuthorizedCode']);

/**
 * oidc-provider's storage for one model (its `name`, stored as the row's kind) on PostgreSQL.
 * Rows are kept `clockToleranceSeconds` past their expiry, as the provider's own adapter does,
 * since the provider accepts them that long.
 */
export class OidcAdapter implements Adapter {
  constructor(
    private readonly models: OAuthModelRepository,
    private readonly kind: string,
    private readonly clockToleranceSeconds = 0,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    await this.models.upsert(this.kind, id, { ...payload }, {
      grantId: GRANT_BOUND.has(this.kind) ? (payload.grantId ?? null) : null,
      userCode: payload.userCode ?? null,
      uid: payload.uid ?? null,
      expiresAt: typeof expiresIn === 'number' ? new Date(Date.now() + (expiresIn + this.clockToleranceSeconds) * 1000) : null,
      ...(this.kind === 'Grant' ? { accountId: payload.accountId ?? null, clientId: payload.clientId ?? null } : {}),
    });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return asPayload(await this.models.find(this.kind, id));
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return asPayload(await this.models.findByUid(this.kind, uid));
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return asPayload(await this.models.findByUserCode(this.kind, userCode));
  }

  async consume(id: string): Promise<void> {
    await this.models.consume(this.kind, id);
  }

  async destroy(id: string): Promise<void> {
    await this.models.destroy(this.kind, id);
  }

  /** Removes every token of the grant, of any kind, as the provider's memory adapter does. */
  async revokeByGrantId(grantId: string): Promise<void> {
    await this.models.destroyGrant(grantId);
  }
}

/** The `adapter` option of the Provider: one adapter per model name (the provider caches each). */
export function oidcAdapterFactory(models: OAuthModelRepository, clockToleranceSeconds = 0): AdapterFactory {
  return (name) => new OidcAdapter(models, name, clockToleranceSeconds);
}

/** The provider reads a truthy `consumed` (epoch seconds, as its own adapter writes) as spent. */
function asPayload(stored: StoredOAuthModel | undefined): AdapterPayload | undefined {
  if (!stored) return undefined;
  const payload = stored.payload as AdapterPayload;
  return stored.consumedAt ? { ...payload, consumed: Math.floor(stored.consumedAt.getTime() / 1000) } : payload;
}
