import { folderSchema } from '../../../shared/contracts/folder.contract.js';
import { newFolderSchema } from '../../routes/folders.routes.js';
import { tool, WRITE } from './tool.js';

export const createFolderTool = tool({
  name: 'create_folder',
  title: 'Create a folder',
  description: 'Creates a folder (names are unique per account, at most 40 characters).',
  scope: 'folders:write',
  input: newFolderSchema,
  output: folderSchema,
  // Names are unique: the same call again is refused and changes nothing.
  annotations: { ...WRITE, idempotentHint: true },
  run: async ({ caller, services }, { name }) => ({ data: await services.folders.create(caller.account, name) }),
});
