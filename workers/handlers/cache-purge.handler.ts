import type { JobHandler } from '../handler.js';

export const cachePurge: JobHandler<'cache.purge'> = async ({ urls }, { container }) => ({
  cdnPurged: await container.services.cachePurges.purgeCdn(urls),
});
