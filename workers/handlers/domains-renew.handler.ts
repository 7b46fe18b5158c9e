import type { JobHandler } from '../handler.js';

export const domainsRenew: JobHandler<'domains.renew'> = async (_data, { container }) => ({
  renewed: await container.services.customDomains.renewDue(),
});
