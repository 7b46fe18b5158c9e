import { expect } from 'chai';
import { request } from 'node:http';
import { pngBytes } from '../helpers/media.js';
import { eventually } from '../helpers/eventually.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { upload } from '../helpers/uploads.js';

/** Starts a multipart upload and sends only its head: the request stays in flight until `finish`. */
function startUpload(env: TestEnv, key: string) {
  const boundary = 'l0adb0undary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`);
  const bytes = pngBytes(30_000, 3);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const url = new URL('/api/upload', env.web.url);
  const req = request(url, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + bytes.length + tail.length },
  });
  const answered = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0)));
    req.on('error', reject);
  });
  req.write(Buffer.concat([head, bytes.subarray(0, 10_000)]));
  return {
    finish: () => {
      req.end(Buffer.concat([bytes.subarray(10_000), tail]));
      return answered;
    },
    abort: () => req.destroy(),
  };
}

describe('uploads in flight (what background work makes room for)', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv();
  });
  after(() => env.close());

  it('counts an upload from its first byte until it is answered', async () => {
    const { apiKey } = await env.createAccount();
    const load = env.container.uploadLoad;
    const pending = startUpload(env, apiKey);
    await eventually(async () => load.uploads === 1, 5000);
    expect(await pending.finish()).to.equal(200);
    expect(load.uploads).to.equal(0);
  });

  it('stops counting refused and abandoned uploads', async () => {
    const { apiKey } = await env.createAccount();
    const load = env.container.uploadLoad;
    expect((await upload(env, { key: 'not-a-key', bytes: pngBytes(2000, 1) })).status).to.equal(403);
    expect((await upload(env, { key: apiKey })).status).to.equal(400);
    expect(load.uploads).to.equal(0);
    const abandoned = startUpload(env, apiKey);
    await eventually(async () => load.uploads === 1, 5000);
    abandoned.abort();
    await eventually(async () => load.uploads === 0, 5000);
  });
});
