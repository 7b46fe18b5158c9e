import type { JobHandler } from '../handler.js';

export const filesExpireSweep: JobHandler<'files.expire-sweep'> = async (_data, { container }) => {
  return { deleted: await container.services.files.sweepExpired() };
};
