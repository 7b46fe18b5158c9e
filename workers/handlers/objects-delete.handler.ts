import { deleteWithDerived } from '../../shared/services/media/thumbnails/thumbnail-keys.js';
import type { JobHandler } from '../handler.js';

export const objectsDelete: JobHandler<'objects.delete'> = async ({ keys }, { container }) => {
  await deleteWithDerived(container.storage, keys);
  return { objects: keys.length };
};
