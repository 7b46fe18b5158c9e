import { Readable } from 'node:stream';
import { z } from 'zod';
import { expirySchema } from '../../../shared/contracts/expiry.contract.js';
import { uploadResultSchema } from '../../../shared/contracts/upload.contract.js';
import { AppError } from '../../../shared/errors.js';
import { folderIdInput } from './inputs.js';
import { tool, WRITE } from './tool.js';

/** The byte length of checked base64, without decoding it. */
function decodedSize(base64: string): number {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 === 1) throw AppError.badRequest('contentBase64 is not base64');
  return Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);
}

export const uploadFileTool = tool({
  name: 'upload_file',
  title: 'Upload a file',
  description: 'Uploads base64 content as a new file (its type is read from the bytes). Same limits as every upload.',
  scope: 'files:write',
  input: z.object({
    filename: z.string().min(1).max(255).describe('the original name, e.g. chart.png'),
    contentBase64: z.string().describe('the file, base64'),
    folderId: folderIdInput,
    expiry: expirySchema.describe("when the file is deleted; '' or absent: never"),
  }),
  output: uploadResultSchema,
  annotations: WRITE,
  run: async ({ caller, services, uploadMaxBytes, signal }, input) => {
    const base64 = input.contentBase64.replace(/\s+/g, '');
    const size = decodedSize(base64);
    if (size === 0) throw AppError.badRequest('contentBase64 is empty');
    if (size > uploadMaxBytes) throw AppError.tooLarge(`upload_file takes at most ${uploadMaxBytes} bytes; use upload_from_url for larger files`);
    const uploader = await services.uploadAuth.uploaderInFolder(caller.account, input.folderId);
    await services.uploads.admit(uploader);
    const body = Readable.from([Buffer.from(base64, 'base64')]);
    return { data: await services.uploads.upload(uploader, body, { originalName: input.filename, expiry: input.expiry, source: 'mcp', signal }) };
  },
});
