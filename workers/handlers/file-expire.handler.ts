import type { JobHandler } from '../handler.js';

// The job is its file's timer: it deletes whatever is due by now, that file among them.
export const fileExpire: JobHandler<'file.expire'> = async (_data, { container }) => {
  return { deleted: await container.services.files.sweepExpired() };
};
