import { z } from 'zod';
import { fileViewSchema } from '../../../shared/contracts/file.contract.js';
import { filenameInput } from './inputs.js';
import { READ, tool } from './tool.js';

export const getFileTool = tool({
  name: 'get_file',
  title: 'File details',
  description: "One file: its URL (in the account's URL style), size, type, kind, upload time, folder, privacy and expiry.",
  scope: 'files:read',
  input: z.object({ filename: filenameInput }),
  output: fileViewSchema,
  annotations: READ,
  run: async ({ caller, services }, { filename }) => {
    const file = await services.fileBrowser.get(caller.account, filename);
    return { data: file, links: [file] };
  },
});
