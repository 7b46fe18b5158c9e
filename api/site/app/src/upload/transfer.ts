import type { UploadResult } from '../types.js';

/** One file on its way: settles with the upload's result, or an UploadError / CancelledError. */
export interface Transfer {
  done: Promise<UploadResult>;
  cancel(): void;
  /** resumable transfers only */
  pause?(): void;
  resume?(): void;
  /** where a resumable transfer can go on from after a failure */
  resumeUrl?(): string | null;
}

export interface TransferOptions {
  expiry: string;
  onProgress: (loaded: number, total: number) => void;
}
