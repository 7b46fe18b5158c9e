import { adminCommand, UsageError } from './admin-command.js';

export const pollCommands = [
  adminCommand({
    name: ['poll', 'create'],
    summary: 'Opens a poll for every account, or for one (--username), and prints {id, options}.',
    options: {
      question: { type: 'string', required: true, value: 'Q', help: 'the question' },
      option: { type: 'string', multiple: true, required: true, value: 'A', help: 'an answer; at least two, in their order' },
      description: { type: 'string', value: 'D', help: 'more about it' },
      username: { type: 'string', value: 'U', help: 'the only account asked' },
      'closes-at': { type: 'string', value: 'ISO', help: 'when it closes by itself (an ISO 8601 time)' },
    },
    async run({ services }, values) {
      const closesAt = values['closes-at'] ? new Date(values['closes-at']) : null;
      if (closesAt && Number.isNaN(closesAt.getTime())) throw new UsageError('--closes-at must be an ISO 8601 time');
      const target = values.username ? await services.accounts.getByUsername(values.username) : null;
      const { poll, options } = await services.polls.create({
        question: values.question,
        description: values.description ?? '',
        options: values.option,
        targetAccountId: target?.id ?? null,
        closesAt,
      });
      return { id: poll.id, options: options.map((o) => ({ id: o.id, text: o.text })) };
    },
  }),
  adminCommand({
    name: ['poll', 'close'],
    summary: 'Closes a poll and prints {id, status, closedAt}.',
    options: { id: { type: 'string', required: true, value: 'ID', help: 'the poll’s id' } },
    positionals: ['id'],
    async run({ services }, values) {
      const poll = await services.polls.close(values.id);
      return { id: poll.id, status: poll.status, closedAt: poll.closedAt?.toISOString() ?? null };
    },
  }),
];
