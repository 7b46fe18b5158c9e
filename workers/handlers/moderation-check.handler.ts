import type { JobHandler } from '../handler.js';

export const moderationCheck: JobHandler<'moderation.check'> = async ({ fileId, objectKey }, { container }) => {
  return { outcome: await container.services.moderation.check(fileId, objectKey) };
};
