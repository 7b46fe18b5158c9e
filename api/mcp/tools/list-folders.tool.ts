import { z } from 'zod';
import { folderSchema } from '../../../shared/contracts/folder.contract.js';
import { READ, tool } from './tool.js';

export const listFoldersTool = tool({
  name: 'list_folders',
  title: 'List folders',
  description: 'Folders with their file counts and whether each is shared as an album.',
  scope: 'folders:read',
  input: z.object({}),
  output: z.object({ folders: z.array(folderSchema) }),
  annotations: READ,
  run: async ({ caller, services }) => ({ data: { folders: await services.folders.list(caller.account) } }),
});
