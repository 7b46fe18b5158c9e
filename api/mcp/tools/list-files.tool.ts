import { z } from 'zod';
import { fileViewSchema } from '../../../shared/contracts/file.contract.js';
import { browseFilesSchema } from '../../../shared/services/files/file-browser.service.js';
import { READ, tool } from './tool.js';

export const listFilesTool = tool({
  name: 'list_files',
  title: 'List files',
  description: 'Files newest first, 25 a page (pass nextCursor for more); filter by name, folder (or root), kind, upload date.',
  scope: 'files:read',
  input: browseFilesSchema,
  output: z.object({ files: z.array(fileViewSchema), nextCursor: z.string().nullable() }),
  annotations: READ,
  run: async ({ caller, services }, input) => {
    const page = await services.fileBrowser.list(caller.account, input);
    return { data: page, links: page.files };
  },
});
