import type { JobHandler } from '../handler.js';

/** One attempt; a failed one runs again as the same job (same webhook-id) after the configured delay. */
export const webhookDeliver: JobHandler<'webhook.deliver'> = async (data, { container, signal, runAgainIn }) => {
  const { retryInMs } = await container.services.webhookDeliveries.deliver(data.deliveryId, signal);
  return retryInMs === undefined ? undefined : runAgainIn(retryInMs, data);
};
