import { parseArgs } from 'node:util';
import type { Container } from '../../shared/container.js';
import { AppError } from '../../shared/errors.js';

/** notify --user U|--all --type T --title T --message M [--link L --link-text X] */
export async function notifyCommand(container: Container, args: string[]): Promise<unknown> {
  const { values } = parseArgs({
    args,
    options: {
      user: { type: 'string' },
      all: { type: 'boolean' },
      type: { type: 'string' },
      title: { type: 'string' },
      message: { type: 'string' },
      link: { type: 'string' },
      'link-text': { type: 'string' },
    },
  });
  if (!values.type || !values.title || !values.message || Boolean(values.user) === Boolean(values.all)) {
    throw AppError.badRequest('usage: notify --user U|--all --type T --title T --message M [--link L --link-text X]');
  }
  const data = {
    ...(values.link ? { link: values.link } : {}),
    ...(values['link-text'] ? { linkText: values['link-text'] } : {}),
  };
  const input = { type: values.type, title: values.title, message: values.message, data };
  await container.redis.connect();
  if (values.all) return container.services.notifications.broadcast(input);
  const account = await container.services.accounts.getByUsername(values.user!);
  return container.services.notifications.notify(account.id, input);
}
