import { z } from 'zod';
import { expirySchema } from '../../../shared/contracts/expiry.contract.js';
import { uploadResultSchema } from '../../../shared/contracts/upload.contract.js';
import { folderIdInput } from './inputs.js';
import { tool, WRITE } from './tool.js';

export const uploadFromUrlTool = tool({
  name: 'upload_from_url',
  title: 'Upload from a URL',
  description: 'Fetches a public image URL and stores it as a new file (private addresses are refused).',
  scope: 'files:write',
  input: z.object({ url: z.string().max(2048), folderId: folderIdInput, expiry: expirySchema.describe("when the file is deleted; '' or absent: never") }),
  output: uploadResultSchema,
  annotations: { ...WRITE, openWorldHint: true },
  run: async ({ caller, services }, input) => {
    const uploader = await services.uploadAuth.uploaderInFolder(caller.account, input.folderId);
    await services.uploads.admit(uploader);
    return { data: await services.urlUploads.request({ accountId: caller.account.id, folderId: uploader.folderId, imageUrl: input.url, expiry: input.expiry, source: 'mcp' }) };
  },
});
