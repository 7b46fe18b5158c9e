import type { JobHandler } from '../handler.js';

export const fileExpire: JobHandler<'file.expire'> = async ({ fileId }, { container }) => {
  return { deleted: await container.services.files.expire(fileId) };
};
