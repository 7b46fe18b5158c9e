import { derivedPrefixOf } from '../../shared/services/media/thumbnails/thumbnail-keys.js';
import type { JobHandler } from '../handler.js';

export const objectDelete: JobHandler<'object.delete'> = async ({ key }, { container }) => {
  const { storage } = container;
  // A file's thumbnails and renditions are stored beside its object and go with it.
  const derived: string[] = [];
  for await (const object of storage.list(derivedPrefixOf(key))) derived.push(object.key);
  await Promise.all([key, ...derived].map((each) => storage.delete(each)));
};
