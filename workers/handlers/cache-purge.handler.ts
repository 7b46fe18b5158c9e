import type { JobHandler } from '../handler.js';

export const cachePurge: JobHandler<'cache.purge'> = async ({ keys, urls }, { container }) => {
  const purges = container.services.cachePurges;
  await purges.broadcast(keys);
  return { cdnPurged: await purges.purgeCdn(urls) };
};
