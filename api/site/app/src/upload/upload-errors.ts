import { messageOf } from '../api.js';
import { formatBytes } from '../format.js';

// An upload's failure in words a person can act on, and whether trying again could help.

export class UploadError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** Cancel was pressed: not a failure to report. */
export class CancelledError extends Error {
  override name = 'CancelledError';
  constructor() {
    super('Cancelled');
  }
}

/** The error for an upload answer: `status` 0 when no answer came at all. */
export function uploadError(status: number, body: Record<string, unknown>): UploadError {
  if (status === 0) return new UploadError('The connection broke off before the upload finished. Check your connection, then retry.', true);
  // The API's words here speak of API keys, which a person on the website never sees.
  if (status === 401) return new UploadError('The upload was refused because this page is no longer signed in. Reload the page and try again.', false);
  if (status === 413) {
    const reason = typeof body.error === 'string' ? body.error.replace(/^File is /, 'the file is ').replace(/(\d{4,}) bytes/, (_, n: string) => formatBytes(Number(n))) : 'the file is larger than your plan allows';
    return new UploadError(`Too large: ${reason.replace(/\.$/, '')}.`, false);
  }
  if (status === 429) {
    const wait = typeof body.retryAfter === 'number' ? ` Try again in ${Math.max(1, Math.ceil(body.retryAfter))} seconds.` : ' Try again in a moment.';
    return new UploadError(`${messageOf(status, body).replace(/\.?$/, '.')}${wait}`, true);
  }
  return new UploadError(messageOf(status, body), status >= 500 || status === 409);
}

/** Refused before sending: the plan's ceiling is known and the file passes it. */
export function tooLarge(size: number, maxBytes: number): UploadError {
  return new UploadError(`Too large: this file is ${formatBytes(size)} and your plan takes files up to ${formatBytes(maxBytes)}.`, false);
}
