import { z } from 'zod';
import { isoDate } from '../../../shared/contracts/common.contract.js';
import { tool, WRITE } from './tool.js';

export const shareFolderTool = tool({
  name: 'share_folder',
  title: 'Share a folder',
  description: 'Shares a folder as a public album (its link), or stops sharing it with shared: false.',
  scope: 'folders:write',
  input: z.object({ folderId: z.string().max(64), shared: z.boolean().optional().describe('false stops sharing (default true)') }),
  output: z.object({ folderId: z.string(), shared: z.boolean(), url: z.url().nullable(), sharedAt: isoDate.nullable() }),
  // Destructive: shared: false ends the album link for good (sharing again makes a new one).
  annotations: { ...WRITE, destructiveHint: true, idempotentHint: true },
  run: async ({ caller, services }, { folderId, shared }) => {
    if (shared === false) {
      await services.albums.unshare(caller.account, folderId);
      return { data: { folderId, shared: false, url: null, sharedAt: null } };
    }
    const album = await services.albums.share(caller.account, folderId);
    return { data: { folderId, shared: true, url: album.url, sharedAt: album.sharedAt } };
  },
});
