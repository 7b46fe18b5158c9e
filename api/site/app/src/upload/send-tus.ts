import { api, ApiError, bodyOf } from '../api.js';
import type { UploadResult } from '../types.js';
import type { Transfer, TransferOptions } from './transfer.js';
import { CancelledError, uploadError } from './upload-errors.js';

/** Files from this size on go resumably, in chunks of the same size. */
export const RESUMABLE_FROM_BYTES = 8 * 1024 * 1024;

interface TusFailure {
  originalResponse?: { getStatus(): number; getBody(): string } | null;
}

/**
 * A resumable upload (tus 1.0 at /api/uploads) that can pause and resume; tus-js-client is loaded
 * only now, so it is not part of the page's first load. `resumeFrom`: the upload URL of an earlier
 * attempt, to go on from where it stopped.
 */
export function sendTus(file: File, { expiry, onProgress }: TransferOptions, resumeFrom: string | null = null): Transfer {
  let upload: import('tus-js-client').Upload | undefined;
  let paused = false;
  let settled = false;
  let resolve!: (result: UploadResult) => void;
  let reject!: (err: Error) => void;
  const done = new Promise<UploadResult>((res, rej) => {
    resolve = (result) => {
      settled = true;
      res(result);
    };
    reject = (err) => {
      settled = true;
      rej(err);
    };
  });

  const finish = async (url: string) => {
    // The tus answer carries no JSON; the upload's result is kept for its uploader at …/result.
    const path = `${new URL(url).pathname.replace(/^\/api/, '')}/result`;
    try {
      resolve((await api<{ data: UploadResult }>(path)).data);
    } catch (err) {
      reject(err instanceof ApiError ? uploadError(err.status, err.body) : uploadError(0, {}));
    }
  };

  void import('tus-js-client').then(
    (tus) => {
      if (settled) return;
      upload = new tus.Upload(file, {
        endpoint: new URL('/api/uploads', location.href).href,
        uploadUrl: resumeFrom,
        chunkSize: RESUMABLE_FROM_BYTES,
        metadata: { filename: file.name, filetype: file.type, expiry },
        retryDelays: [0, 1000, 3000, 5000],
        storeFingerprintForResuming: false,
        onProgress,
        onSuccess: () => void finish(upload!.url!),
        onError: (err) => {
          const response = (err as TusFailure).originalResponse;
          reject(response ? uploadError(response.getStatus(), bodyOf(response.getBody())) : uploadError(0, {}));
        },
      });
      if (!paused) upload.start();
    },
    () => reject(uploadError(0, {})),
  );

  return {
    done,
    cancel() {
      if (settled) return;
      // Ends the upload on the server too, so its part-received bytes go at once.
      void upload?.abort(true).catch(() => undefined);
      reject(new CancelledError());
    },
    pause() {
      paused = true;
      void upload?.abort(false);
    },
    resume() {
      paused = false;
      upload?.start();
    },
    resumeUrl: () => upload?.url ?? resumeFrom,
  };
}
