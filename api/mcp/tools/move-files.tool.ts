import { z } from 'zod';
import { batchMoveSchema } from '../../routes/files.schemas.js';
import { itemResult } from './inputs.js';
import { tool, WRITE } from './tool.js';

export const moveFilesTool = tool({
  name: 'move_files',
  title: 'Move files',
  description: 'Moves files into a folder, or to the library root with folderId null; each file reports its own result.',
  scope: 'files:write',
  input: batchMoveSchema,
  output: z.object({ results: z.array(itemResult), folderId: z.string().nullable() }),
  annotations: { ...WRITE, idempotentHint: true },
  run: async ({ caller, services }, { filenames, folderId }) => {
    const { moved, errors } = await services.files.moveMany(caller.account, filenames, folderId);
    const results = [...moved.map((f) => ({ filename: f, ok: true })), ...errors.map((e) => ({ filename: e.filename, ok: false, error: e.error }))];
    return { data: { results, folderId } };
  },
});
