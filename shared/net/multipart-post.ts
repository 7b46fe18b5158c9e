import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';

export interface PostedFile {
  field: string;
  filename: string;
  contentType: string;
  size: number;
  body: Readable;
}

/**
 * POSTs one file as multipart/form-data, streaming its body (never buffered), to a service we
 * operate. Resolves with the status and the JSON (or text) answer.
 */
export function postMultipart(url: string, file: PostedFile, timeoutMs: number): Promise<{ status: number; body: unknown }> {
  const boundary = `----hfs${randomBytes(12).toString('hex')}`;
  const safeName = file.filename.replace(/["\r\n\\]/g, '_');
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${safeName}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const send = url.startsWith('https:') ? httpsRequest : request;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        timeout: timeoutMs,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + file.size + tail.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON: keep the text for the error message
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    req.on('error', (err) => {
      file.body.destroy();
      reject(err);
    });
    file.body.on('error', (err) => req.destroy(err));
    req.write(head);
    file.body.on('end', () => req.end(tail));
    file.body.pipe(req, { end: false });
  });
}
