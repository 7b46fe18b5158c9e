import type { JobHandler } from '../handler.js';

export const notifyBroadcast: JobHandler<'notify.broadcast'> = async ({ broadcastId, ...notification }, { container }) => {
  return { written: await container.services.notifications.runBroadcast(broadcastId, notification) };
};
