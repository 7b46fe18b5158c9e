import { deleteWithDerived } from '../../shared/services/media/thumbnails/thumbnail-keys.js';
import type { JobHandler } from '../handler.js';

export const objectsDelete: JobHandler<'objects.delete'> = async ({ keys }, { container }) => {
  return { deleted: await deleteWithDerived(container.storage, keys) };
};
