import type { JobHandler } from '../handler.js';

export const oauthPrune: JobHandler<'oauth.prune'> = async (_data, { container }) => {
  return container.services.connections.prune();
};
