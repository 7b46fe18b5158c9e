import { deleteWithDerived } from '../../shared/services/media/thumbnails/thumbnail-keys.js';
import type { JobHandler } from '../handler.js';

// A file's thumbnails and renditions are stored beside its object and go with it.
export const objectDelete: JobHandler<'object.delete'> = async ({ key }, { container }) => {
  await deleteWithDerived(container.storage, [key]);
};
