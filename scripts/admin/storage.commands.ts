import { adminCommand, UsageError } from './admin-command.js';

export const storageCommands = [
  adminCommand({
    name: ['storage', 'reconcile'],
    summary: 'Deletes stored objects that no file names, finds files whose object is missing or of the wrong size, and prints {scanned, removed, checked, missing, wrongSize}.',
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
  adminCommand({
    name: ['storage', 'verify'],
    summary: 'Re-reads stored objects and prints {checked, mismatched, missing, skipped}: files whose bytes differ from their recorded SHA-256, or are gone.',
    options: {
      sample: { type: 'string', value: 'N', help: 'check N files picked at random (default: every file)' },
    },
    async run({ services }, values) {
      const sample = values.sample;
      if (sample !== undefined && !/^[1-9]\d*$/.test(sample)) throw new UsageError('--sample must be a whole number above 0');
      return services.integrity.verify({ sample: sample === undefined ? undefined : Number(sample) });
    },
  }),
];
