import { fork } from 'node:child_process';
import { createServer, request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.js';

export interface S3rverHandle {
  endpoint: string;
  bucket: string;
  directory: string;
  stop(): Promise<void>;
}

/** The service's environment for storing on this s3rver. */
export function s3EnvOf(s3: S3rverHandle): Record<string, string> {
  return {
    STORAGE_DRIVER: 's3',
    S3_BUCKET: s3.bucket,
    S3_ENDPOINT: s3.endpoint,
    S3_FORCE_PATH_STYLE: 'true',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
  };
}

/** A real S3 endpoint (s3rver) on a free loopback port, in a child process, with one bucket. */
export async function startS3rver(bucket = 'hfs-test'): Promise<S3rverHandle> {
  const port = await freePort();
  const directory = await mkdtemp(path.join(tmpdir(), 'hfs-s3rver-'));
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 's3rver.child.cjs');
  // s3rver ciphers its ListObjectsV2 continuation tokens with DES, which OpenSSL 3 offers only through
  // its legacy provider: without it every listing past the first page fails.
  const child = fork(script, [String(port), directory, bucket], { stdio: 'ignore', execArgv: [...process.execArgv, '--openssl-legacy-provider'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    directory,
    async stop() {
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Forwards to an S3 endpoint and tracks multipart uploads from the responses: started ones (the
 * UploadId of POST ?uploads) that were neither completed (POST ?uploadId) nor aborted (DELETE ?uploadId).
 */
export async function startRecordingProxy(target: string) {
  const open = new Set<string>();
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const uploadId = url.searchParams.get('uploadId');
    if (uploadId && (req.method === 'DELETE' || (req.method === 'POST' && !url.searchParams.has('partNumber')))) open.delete(uploadId);
    const forward = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        const initiating = req.method === 'POST' && url.searchParams.has('uploads');
        answer.on('data', (chunk: Buffer) => initiating && chunks.push(chunk));
        answer.on('end', () => {
          const id = /<UploadId>([^<]+)<\/UploadId>/.exec(Buffer.concat(chunks).toString())?.[1];
          if (initiating && id) open.add(id);
        });
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    openMultipartUploads: () => [...open],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
