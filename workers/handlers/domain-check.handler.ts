import { nextDomainCheckInMs } from '../../shared/services/custom-domains/custom-domain.service.js';
import type { JobHandler } from '../handler.js';

/** A pending domain is looked at again, further apart each time, until it is active, failed or gone. */
export const domainCheck: JobHandler<'domain.check'> = async (data, { container, runAgainIn }) => {
  const outcome = await container.services.customDomains.checkScheduled(data.accountId, data.domain, data.attempt);
  if (outcome !== 'pending') return outcome;
  const attempt = data.attempt + 1;
  return runAgainIn(nextDomainCheckInMs(attempt), { ...data, attempt });
};
