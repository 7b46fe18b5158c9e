import { z } from 'zod';
import type { AccountRow } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { Plans } from '../plans.js';
import type { AccountRepository } from '../repositories/account.repository.js';
import { validate } from '../validation.js';
import type { FileUrls } from './file-urls.js';

const formatSchema = z.object({
  format: z.enum(['subdomain', 'short', 'custom'], { error: 'format must be subdomain, short or custom' }),
});

/** The URL style of new uploads; existing links keep the style they were made with. */
export class UrlFormatService {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly urls: FileUrls,
    private readonly plans: Plans,
    /** the account's active custom domain, once custom domains exist */
    private readonly activeCustomDomain: (account: AccountRow) => Promise<string | null> = async () => null,
  ) {}

  async get(account: AccountRow) {
    const customDomain = await this.activeCustomDomain(account);
    return {
      format: account.urlFormat,
      subdomainUrl: this.urls.subdomainBase(account.username),
      standardUrl: this.urls.standardBase(account.username),
      customDomainActive: customDomain !== null,
      customDomainUrl: customDomain ? `https://${customDomain}` : null,
    };
  }

  async set(account: AccountRow, input: unknown) {
    const { format } = validate(formatSchema, input);
    if (format === 'custom') {
      if (!this.plans.of(account.plan).customDomain) throw AppError.forbidden('Custom domains require a Pro plan');
      if (!(await this.activeCustomDomain(account))) throw AppError.badRequest('Verify a custom domain before choosing the custom format');
    }
    await this.accounts.update(account.id, { urlFormat: format });
    const messages = {
      subdomain: 'New uploads will use your personal subdomain',
      short: 'New uploads will use short URLs',
      custom: 'New uploads will use your custom domain',
    };
    return { format, message: `${messages[format]}; existing links are unchanged` };
  }
}
