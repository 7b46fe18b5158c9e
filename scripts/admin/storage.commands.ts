import { adminCommand, UsageError } from './admin-command.js';

export const storageCommands = [
  adminCommand({
    name: ['storage', 'reconcile'],
    summary: 'Deletes stored objects that no file names and prints {scanned, removed}.',
    options: {
      'min-age': { type: 'string', value: 'SECONDS', help: 'only objects at least this old (default 3600; 0 only when no upload is running)' },
    },
    async run({ services }, values) {
      const minAge = values['min-age'];
      if (minAge === undefined) return services.orphanSweep.reconcile();
      // 0 is allowed: right after killing the processes that were uploading, every orphan is fair game.
      if (!/^\d+$/.test(minAge)) throw new UsageError('--min-age must be a whole number of seconds');
      return services.orphanSweep.reconcile({ minAgeMs: Number(minAge) * 1000 });
    },
  }),
];
