import { z } from 'zod';
import { filenameInput, itemResult } from './inputs.js';
import { DESTROY, perItem, tool } from './tool.js';

export const deleteFilesTool = tool({
  name: 'delete_files',
  title: 'Delete files',
  description: 'Deletes files for good (their URLs stop working at once); each file reports its own result.',
  scope: 'files:delete',
  input: z.object({ filenames: z.array(filenameInput).min(1).max(100) }),
  output: z.object({ results: z.array(itemResult) }),
  annotations: DESTROY,
  run: async ({ caller, services }, { filenames }) => ({
    data: {
      results: await perItem([...new Set(filenames)], (f) => f, async (f) => {
        await services.files.deleteOwned(caller.account, f);
        return { filename: f, ok: true };
      }),
    },
  }),
});
