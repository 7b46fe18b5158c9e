import type { JobHandler } from '../handler.js';

/**
 * Checks the job's files one after another, each after the pause a yielding queue takes (the first
 * had it before the job). A failure (the service unreachable) or a shutdown ends the job, to be
 * retried; the files judged by then are left alone on the retry.
 */
export const moderationCheck: JobHandler<'moderation.check'> = async ({ files }, { container, pause, signal }) => {
  const outcomes = [];
  for (const [i, { fileId, objectKey }] of files.entries()) {
    if (i > 0) await pause();
    signal.throwIfAborted();
    outcomes.push(await container.services.moderation.check(fileId, objectKey));
  }
  return { outcomes };
};
