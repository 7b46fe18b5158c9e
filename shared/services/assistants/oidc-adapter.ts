import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';
import type { OAuthModelRepository, StoredOAuthModel } from '../../repositories/oauth-model.repository.js';
import { isStorableText, isStorableValue, UNSTORABLE_TEXT, unstorableText } from '../../text-hygiene.js';

/** The error the provider answers when what it was about to store or look up cannot be stored. */
export type RefuseText = (description: string) => Error;

/**
 * The models whose rows a grant revocation removes (oidc-provider's own memory adapter indexes the
 * same ones). An Interaction also carries a grantId but must outlive a revoked token.
 */
const GRANT_BOUND = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest', 'PreAuthorizedCode']);

/**
 * oidc-provider's storage for one model (its `name`, stored as the row's kind) on PostgreSQL.
 * Rows are kept `clockToleranceSeconds` past their expiry, as the provider's own adapter does,
 * since the provider accepts them that long. An id or payload holding text PostgreSQL cannot store
 * (a NUL, a lone surrogate: from a request, or a fetched client metadata document) is refused with
 * `refuse` before any query; the provider answers it as an OAuth error, not a 500.
 */
export class OidcAdapter implements Adapter {
  constructor(
    private readonly models: OAuthModelRepository,
    private readonly kind: string,
    private readonly clockToleranceSeconds = 0,
    private readonly refuse: RefuseText = unstorableText,
  ) {}

  private storable(id: string): string {
    if (!isStorableText(id)) throw this.refuse(UNSTORABLE_TEXT);
    return id;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    if (!isStorableValue(payload)) throw this.refuse(UNSTORABLE_TEXT);
    await this.models.upsert(this.kind, this.storable(id), { ...payload }, {
      grantId: GRANT_BOUND.has(this.kind) ? (payload.grantId ?? null) : null,
      userCode: payload.userCode ?? null,
      uid: payload.uid ?? null,
      expiresAt: typeof expiresIn === 'number' ? new Date(Date.now() + (expiresIn + this.clockToleranceSeconds) * 1000) : null,
      ...(this.kind === 'Grant' ? { accountId: payload.accountId ?? null, clientId: payload.clientId ?? null } : {}),
    });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return asPayload(await this.models.find(this.kind, this.storable(id)));
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return asPayload(await this.models.findByUid(this.kind, this.storable(uid)));
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return asPayload(await this.models.findByUserCode(this.kind, this.storable(userCode)));
  }

  async consume(id: string): Promise<void> {
    await this.models.consume(this.kind, this.storable(id));
  }

  async destroy(id: string): Promise<void> {
    await this.models.destroy(this.kind, this.storable(id));
  }

  /** Removes every token of the grant, of any kind, as the provider's memory adapter does. */
  async revokeByGrantId(grantId: string): Promise<void> {
    await this.models.destroyGrant(this.storable(grantId));
  }
}

/** The `adapter` option of the Provider: one adapter per model name (the provider caches each). */
export function oidcAdapterFactory(models: OAuthModelRepository, clockToleranceSeconds = 0, refuse?: RefuseText): AdapterFactory {
  return (name) => new OidcAdapter(models, name, clockToleranceSeconds, refuse);
}

/** The provider reads a truthy `consumed` (epoch seconds, as its own adapter writes) as spent. */
function asPayload(stored: StoredOAuthModel | undefined): AdapterPayload | undefined {
  if (!stored) return undefined;
  const payload = stored.payload as AdapterPayload;
  return stored.consumedAt ? { ...payload, consumed: Math.floor(stored.consumedAt.getTime() / 1000) } : payload;
}
