import { parseArgs } from 'node:util';
import type { Container } from '../../shared/container.js';
import { AppError } from '../../shared/errors.js';

const USAGE = 'usage: storage reconcile [--min-age SECONDS]';

/** storage reconcile [--min-age SECONDS]: delete stored objects no file names (default age: one hour). */
export async function storageCommand(container: Container, args: string[]): Promise<unknown> {
  const [sub, ...rest] = args;
  if (sub !== 'reconcile') throw AppError.badRequest(USAGE);
  const { values } = parseArgs({ args: rest, options: { 'min-age': { type: 'string' } } });
  const minAge = values['min-age'];
  if (minAge === undefined) return container.services.orphanSweep.reconcile();
  // 0 is allowed: right after killing the processes that were uploading, every orphan is fair game.
  if (!/^\d+$/.test(minAge)) throw AppError.badRequest(`--min-age must be a whole number of seconds; ${USAGE}`);
  return container.services.orphanSweep.reconcile({ minAgeMs: Number(minAge) * 1000 });
}
