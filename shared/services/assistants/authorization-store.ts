import type { AdapterFactory } from 'oidc-provider';
import type { SecretBox } from '../../crypto.js';
import { type Principal, principalOf } from '../../principal.js';
import type { AccountRepository } from '../../repositories/account.repository.js';
import type { OAuthModelRepository } from '../../repositories/oauth-model.repository.js';
import { oidcAdapterFactory, type RefuseText } from './oidc-adapter.js';
import { loadSigningKey, type SigningJwk } from './signing-keys.js';

/** What the authorization server keeps and asks of the domain: its state, its key, who may sign in. */
export class AuthorizationStore {
  constructor(
    private readonly models: OAuthModelRepository,
    private readonly accountRows: AccountRepository,
    private readonly box: SecretBox,
  ) {}

  /** oidc-provider's storage, on PostgreSQL; `refuse` makes the provider's error for text it cannot store. */
  adapter(clockToleranceSeconds: number, refuse: RefuseText): AdapterFactory {
    return oidcAdapterFactory(this.models, clockToleranceSeconds, refuse);
  }

  /** Keys of the provider's signed cookies, derived from SECRET_KEY so every process shares them. */
  cookieKeys(): string[] {
    return [this.box.sign('oauth-cookie-keys')];
  }

  signingKey(): Promise<SigningJwk> {
    return loadSigningKey(this.models, this.box);
  }

  /** The account, if it may sign in or use a token: a banned or deleted one may not. */
  async activeAccount(id: string): Promise<Principal | undefined> {
    const account = await this.accountRows.findById(id);
    return account?.status === 'active' ? principalOf(account) : undefined;
  }
}
