import { dropLinkSchema } from '../../../shared/contracts/drop-link.contract.js';
import { createDropLinkSchema } from '../../../shared/services/folders/drop-link.service.js';
import { tool, WRITE } from './tool.js';

export const requestFileFromUserTool = tool({
  name: 'request_file_from_user',
  title: 'Ask for a file',
  description: 'Makes a single-use drop link for someone to upload one file into the library (no account needed); then call check_file_handoff.',
  scope: 'files:write',
  input: createDropLinkSchema,
  output: dropLinkSchema,
  annotations: WRITE,
  run: async ({ caller, services }, input) => ({ data: await services.dropLinks.create(caller.account, input) }),
});
