import type { JobHandler } from '../handler.js';

export const moderationSweep: JobHandler<'moderation.sweep'> = async (_data, { container }) => {
  return { requeued: await container.services.moderation.requeueLost() };
};
