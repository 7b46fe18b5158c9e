import { AppError } from './errors.js';

// BullMQ keeps only a failed job's message, so an AppError travels as JSON in it and is rebuilt
// on the side that waits for the job.
const MARK = 'app-error:';

export function encodeJobError(err: AppError): string {
  return MARK + JSON.stringify({ status: err.status, code: err.code, message: err.message, extra: err.extra });
}

export function decodeJobError(failedReason: string | undefined): AppError | undefined {
  if (!failedReason?.startsWith(MARK)) return undefined;
  try {
    const { status, code, message, extra } = JSON.parse(failedReason.slice(MARK.length));
    return new AppError(status, code, message, extra);
  } catch {
    return undefined;
  }
}

