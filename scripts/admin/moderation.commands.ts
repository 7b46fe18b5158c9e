import type { Container } from '../../shared/container.js';
import { AppError } from '../../shared/errors.js';

/** moderation list | moderation release FILE_ID */
export async function moderationCommand(container: Container, args: string[]): Promise<unknown> {
  const [sub, id] = args;
  const moderation = container.services.moderation;
  if (sub === 'list') return { files: await moderation.flagged() };
  if (sub === 'release' && id) {
    await container.redis.connect();
    return moderation.release(id);
  }
  throw AppError.badRequest('usage: moderation list | moderation release FILE_ID');
}
