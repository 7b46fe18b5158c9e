import type { JobHandler } from '../handler.js';

export const fileThumbnail: JobHandler<'file.thumbnail'> = async ({ fileId, objectKey }, { container, signal }) => {
  return { outcome: await container.services.thumbnails.make(fileId, objectKey, signal) };
};
