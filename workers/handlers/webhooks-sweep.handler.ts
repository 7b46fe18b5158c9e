import type { JobHandler } from '../handler.js';

export const webhooksSweep: JobHandler<'webhooks.sweep'> = async (_data, { container }) => {
  return container.services.webhookDeliveries.requeueLost();
};
