import type { JobHandler } from '../handler.js';

export const pollsCloseDue: JobHandler<'polls.close-due'> = async (_data, { container }) => {
  return { closed: await container.services.polls.closeDue() };
};
