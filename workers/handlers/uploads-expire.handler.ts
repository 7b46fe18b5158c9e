import type { JobHandler } from '../handler.js';

export const uploadsExpire: JobHandler<'uploads.expire'> = async (_data, { container }) => ({
  removed: await container.tusStore.deleteExpired(),
  resultsForgotten: await container.services.tusResults.prune(),
});
