import { z } from 'zod';
import { fileViewSchema } from '../../../shared/contracts/file.contract.js';
import { filenameInput } from './inputs.js';
import { READ, tool } from './tool.js';

export const viewFileTool = tool({
  name: 'view_file',
  title: 'Look at a file',
  description: 'Shows an image (or a video frame) downscaled to at most 1568 px; other kinds come back as details and a link.',
  scope: 'files:read',
  input: z.object({ filename: filenameInput }),
  output: z.object({ file: fileViewSchema, shown: z.boolean(), note: z.string().optional() }),
  annotations: READ,
  run: async ({ caller, services, signal }, { filename }) => {
    const { file, image, note } = await services.fileBrowser.preview(caller.account, filename, signal);
    return { data: { file, shown: Boolean(image), ...(note ? { note } : {}) }, ...(image ? { image } : {}) };
  },
});
