import type { JobHandler } from '../handler.js';

export const storageReconcile: JobHandler<'storage.reconcile'> = async (_data, { container, signal }) => {
  return container.services.orphanSweep.reconcile({ signal });
};
