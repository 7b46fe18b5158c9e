import { parseArgs } from 'node:util';
import type { Container } from '../../shared/container.js';
import { AppError } from '../../shared/errors.js';

/** poll create --question Q --option A --option B [--description D] [--user U] [--closes-at ISO]; poll close ID */
export async function pollCommand(container: Container, args: string[]): Promise<unknown> {
  const [sub, ...rest] = args;
  const polls = container.services.polls;
  if (sub === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: {
        question: { type: 'string' },
        option: { type: 'string', multiple: true },
        description: { type: 'string' },
        user: { type: 'string' },
        'closes-at': { type: 'string' },
      },
    });
    const target = values.user ? await container.services.accounts.getByUsername(values.user) : null;
    const { poll, options } = await polls.create({
      question: values.question ?? '',
      description: values.description ?? '',
      options: values.option ?? [],
      targetAccountId: target?.id ?? null,
      closesAt: values['closes-at'] ? new Date(values['closes-at']) : null,
    });
    return { id: poll.id, options: options.map((o) => ({ id: o.id, text: o.text })) };
  }
  if (sub === 'close') {
    const poll = await polls.close(rest[0] ?? '');
    return { id: poll.id, status: poll.status, closedAt: poll.closedAt?.toISOString() ?? null };
  }
  throw AppError.badRequest('usage: poll create --question Q --option A --option B [--description D] [--user U] | poll close ID');
}
