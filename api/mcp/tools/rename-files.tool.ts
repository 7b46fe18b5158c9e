import { z } from 'zod';
import { validate } from '../../../shared/validation.js';
import { renameSchema } from '../../routes/files.schemas.js';
import { filenameInput, itemResult } from './inputs.js';
import { perItem, tool, WRITE } from './tool.js';

export const renameFilesTool = tool({
  name: 'rename_files',
  title: 'Rename files',
  description: 'Renames one or more files (the URL changes); each result has the new URL or its error.',
  scope: 'files:write',
  // Each new name is checked on its own, so one bad name is that item's error, not the call's.
  input: z.object({ renames: z.array(z.object({ filename: filenameInput, newFilename: z.string().max(255) })).min(1).max(100) }),
  output: z.object({ results: z.array(itemResult.extend({ newFilename: z.string().optional(), url: z.string().optional() })) }),
  // Renaming again changes nothing more (the old name is gone), and renaming back restores the URL.
  annotations: { ...WRITE, idempotentHint: true },
  run: async ({ caller, services }, { renames }) => ({
    data: {
      results: await perItem(renames, (r) => r.filename, async ({ filename, newFilename }) => {
        const renamed = await services.files.rename(caller.account, filename, validate(renameSchema, { newFilename }).newFilename);
        return { filename, ok: true, newFilename: renamed.newFilename, url: renamed.newUrl };
      }),
    },
  }),
});
