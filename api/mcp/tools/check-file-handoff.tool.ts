import { z } from 'zod';
import { dropLinkSchema } from '../../../shared/contracts/drop-link.contract.js';
import { MAX_DROP_WAIT_SECONDS } from '../../../shared/services/folders/drop-link.service.js';
import { READ, tool } from './tool.js';

// A few seconds under the longest wait, so the answer comes before the client gives up.
const WAIT_SECONDS = MAX_DROP_WAIT_SECONDS - 5;

export const checkFileHandoffTool = tool({
  name: 'check_file_handoff',
  title: 'Wait for a requested file',
  description: `Waits up to ${WAIT_SECONDS} s for the file of a drop link; answers pending (call again) or received with the file.`,
  scope: 'files:read',
  input: z.object({ id: z.string().max(64).describe('the id request_file_from_user gave'), waitSeconds: z.number().int().min(0).max(WAIT_SECONDS).optional() }),
  output: dropLinkSchema,
  annotations: READ,
  run: async ({ caller, services, arrivals, signal, progress }, { id, waitSeconds }) => {
    const seconds = waitSeconds ?? WAIT_SECONDS;
    const started = Date.now();
    // Progress at once and then every few seconds while waiting, so clients see the call is alive.
    const report = () => void progress(Math.round((Date.now() - started) / 1000), seconds, 'waiting for the file').catch(() => undefined);
    report();
    const beat = setInterval(report, 5000);
    try {
      return { data: await services.dropLinks.get(caller.account, id, { waitSeconds: seconds, arrivals, signal }) };
    } finally {
      clearInterval(beat);
    }
  },
});
