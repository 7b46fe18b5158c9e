import type { JobHandler } from '../handler.js';

export const objectDelete: JobHandler<'object.delete'> = async ({ key }, { container }) => {
  await container.storage.delete(key);
};
