import type { JobHandler } from '../handler.js';

export const urlFetch: JobHandler<'url.fetch'> = async (payload, { container, signal }) => {
  return container.services.urlUploads.fetchAndStore(payload, signal);
};
