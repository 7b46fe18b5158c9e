import { renditionKeysOf } from '../../shared/services/media/thumbnails/thumbnail-keys.js';
import type { JobHandler } from '../handler.js';

export const objectDelete: JobHandler<'object.delete'> = async ({ key }, { container }) => {
  // A file's thumbnails are stored beside its object and go with it.
  await Promise.all([key, ...renditionKeysOf(key)].map((each) => container.storage.delete(each)));
};
