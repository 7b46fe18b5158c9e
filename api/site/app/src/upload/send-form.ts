import { bodyOf } from '../api.js';
import type { UploadResult } from '../types.js';
import type { Transfer, TransferOptions } from './transfer.js';
import { CancelledError, uploadError } from './upload-errors.js';

/** `POST /api/upload?format=json` in one request, with XMLHttpRequest for its upload progress. */
export function sendForm(file: File, { expiry, onProgress }: TransferOptions): Transfer {
  const xhr = new XMLHttpRequest();
  const done = new Promise<UploadResult>((resolve, reject) => {
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    xhr.onload = () => {
      const body = bodyOf(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300 && body.data) resolve(body.data as UploadResult);
      else reject(uploadError(xhr.status, body));
    };
    xhr.onerror = () => reject(uploadError(0, {}));
    xhr.onabort = () => reject(new CancelledError());
  });
  const form = new FormData();
  form.append('expiry', expiry);
  form.append('file', file, file.name);
  xhr.open('POST', '/api/upload?format=json');
  xhr.send(form);
  return { done, cancel: () => xhr.abort() };
}
