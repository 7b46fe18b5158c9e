import { adminCommand } from './admin-command.js';

export const moderationCommands = [
  adminCommand({
    name: ['moderation', 'list'],
    summary: 'Prints {files}: the files moderation blocked or flagged for review (at most 100).',
    options: {},
    run: async ({ services }) => ({ files: await services.moderation.flagged() }),
  }),
  adminCommand({
    name: ['moderation', 'release'],
    summary: 'Serves a blocked file again, takes it off the review list and prints {id, filename, quarantined}.',
    options: { id: { type: 'string', required: true, value: 'FILE_ID', help: 'the file’s id (from moderation list)' } },
    positionals: ['id'],
    async run(container, values) {
      await container.redis.connect();
      return container.services.moderation.release(values.id);
    },
  }),
];
