import { z } from 'zod';
import { DESTROY, tool } from './tool.js';

export const deleteFolderTool = tool({
  name: 'delete_folder',
  title: 'Delete a folder',
  description: 'Deletes a folder for good; its files move to the library root.',
  scope: 'folders:write',
  input: z.object({ folderId: z.string().max(64) }),
  output: z.object({ deleted: z.boolean(), folderId: z.string() }),
  annotations: DESTROY,
  run: async ({ caller, services }, { folderId }) => {
    await services.folders.delete(caller.account, folderId);
    return { data: { deleted: true, folderId } };
  },
});
