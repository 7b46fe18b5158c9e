import { bodyOf } from '../api.js';
import { RESUMABLE_FROM_BYTES } from '../upload/send-tus.js';

// Sends one file to a drop link from inside the host's sandbox (another origin, no cookie): one
// multipart POST to the link itself, or from RESUMABLE_FROM_BYTES on a tus upload that carries the
// link's token (X-Drop-Token), so the link's own rules (one file, its size, its expiry) apply alike.

export const DROP_TOKEN_HEADER = 'X-Drop-Token';

type Progress = (loaded: number, total: number) => void;

export function sendToDropLink(url: string, file: File, onProgress: Progress): Promise<void> {
  return file.size >= RESUMABLE_FROM_BYTES ? sendTus(url, file, onProgress) : sendForm(url, file, onProgress);
}

function sendForm(url: string, file: File, onProgress: Progress): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    xhr.onload = () => (xhr.status === 200 ? resolve() : reject(failure(xhr.status, xhr.responseText)));
    xhr.onerror = () => reject(failure(0, ''));
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.open('POST', url);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.send(form);
  });
}

async function sendTus(url: string, file: File, onProgress: Progress): Promise<void> {
  const tus = await import('tus-js-client');
  const token = new URL(url).pathname.split('/').pop() ?? '';
  await new Promise<void>((resolve, reject) => {
    const upload = new tus.Upload(file, {
      endpoint: new URL('/api/uploads', url).href,
      headers: { [DROP_TOKEN_HEADER]: token },
      chunkSize: RESUMABLE_FROM_BYTES,
      metadata: { filename: file.name, filetype: file.type },
      retryDelays: [0, 1000, 3000, 5000],
      storeFingerprintForResuming: false,
      onProgress,
      onSuccess: () => resolve(),
      onError: (err) => {
        const response = (err as { originalResponse?: { getStatus(): number; getBody(): string } | null }).originalResponse;
        reject(response ? failure(response.getStatus(), response.getBody()) : failure(0, ''));
      },
    });
    upload.start();
  });
}

function failure(status: number, text: string): Error {
  if (status === 0) return new Error('The connection failed; nothing was sent. Try again.');
  const error = bodyOf(text).error;
  return new Error(typeof error === 'string' ? error : `Sending failed (${status})`);
}
