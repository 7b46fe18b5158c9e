import { AppError } from '../../errors.js';
import type { Plans } from '../../plans.js';
import type { Principal } from '../../principal.js';
import type { AccountRepository } from '../../repositories/account.repository.js';
import type { AccountUrlFormat } from '../../contracts/values.js';
import type { FileUrls } from './file-urls.js';


const MESSAGES: Record<AccountUrlFormat, string> = {
  subdomain: 'New uploads will use your personal subdomain',
  short: 'New uploads will use short URLs',
  custom: 'New uploads will use your custom domain',
};

/** The URL style of new uploads; existing links keep the style they were made with. */
export class UrlFormatService {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly urls: FileUrls,
    private readonly plans: Plans,
  ) {}

  async get(account: Principal) {
    const row = await this.accounts.findById(account.id);
    if (!row) throw AppError.notFound('Account not found');
    const customDomain = row.customDomain;
    return {
      format: row.urlFormat,
      subdomainUrl: this.urls.subdomainBase(account.username),
      standardUrl: this.urls.standardBase(account.username),
      customDomainActive: customDomain !== null,
      customDomainUrl: customDomain ? `https://${customDomain}` : null,
    };
  }

  async set(account: Principal, format: AccountUrlFormat) {
    if (format === 'custom') {
      if (!this.plans.of(account.plan).customDomain) throw AppError.forbidden('Custom domains require a Pro plan');
      if (!account.customDomain) throw AppError.badRequest('Verify a custom domain before choosing the custom format');
    }
    await this.accounts.update(account.id, { urlFormat: format });
    return { format, message: `${MESSAGES[format]}; existing links are unchanged` };
  }
}
