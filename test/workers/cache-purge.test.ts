import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import sharp from 'sharp';
import { pngBytes } from '../helpers/media.js';
import { freePort } from '../helpers/ports.js';
import { createTestEnv, startSecondWebProcess, type TestEnv } from '../helpers/test-env.js';
import { getWithHost, upload } from '../helpers/uploads.js';
import { eventually } from '../helpers/eventually.js';


describe('cache purge across web processes and at the CDN', () => {
  let env: TestEnv;
  let second: Awaited<ReturnType<typeof startSecondWebProcess>>;
  let cdn: Server;
  const purged: { method: string; url: string; authorization: string | undefined }[] = [];

  before(async () => {
    const cdnPort = await freePort();
    cdn = createServer((req, res) => {
      purged.push({ method: req.method!, url: new URL(req.url!, 'http://cdn').searchParams.get('url')!, authorization: req.headers.authorization });
      res.end('ok');
    });
    await new Promise<void>((resolve) => cdn.listen(cdnPort, '127.0.0.1', resolve));
    env = await createTestEnv({ workers: true, env: { CDN_PURGE_URL: `http://127.0.0.1:${cdnPort}/purge?url={url}` } });
    // A second web process: same database, Redis and config, but a cache of its own.
    second = await startSecondWebProcess(env);
  });
  after(async () => {
    await second.close();
    await env.close();
    cdn.close();
  });

  /** The same URL, asked of the second web process. */
  const viaSecond = (url: string) => getWithHost(url, {}, 'GET', Number(new URL(second.web.url).port));

  it('a rename in one process stops the old name being served by another, and purges the URLs at the CDN', async () => {
    const alice = await env.createAccount();
    const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(1000), json: true });
    const { url, filename } = res.body.data as { url: string; filename: string };
    expect((await viaSecond(url)).status).to.equal(200); // now cached in the second process

    const renamed = await env.api.put(`/api/user/images/${filename}/rename`, { key: alice.apiKey, json: { newFilename: 'renamed.png' } });
    expect(renamed.status).to.equal(200);
    expect((await getWithHost(url)).status).to.equal(404); // the renaming process drops its entries at once
    // ...and the other process has heard before the rename was answered, with no worker involved.
    expect((await viaSecond(url)).status).to.equal(404);
    expect((await viaSecond(renamed.body.newUrl)).status).to.equal(200);

    // The job purges the file's URLs one after another: wait for every one of them.
    const standard = `${env.container.config.siteUrl}/u/${alice.username}/${filename}`;
    const expected = [url, standard, renamed.body.newUrl];
    await eventually(async () => expected.every((u) => purged.some((p) => p.url === u)));
    expect(purged.every((p) => p.method === 'PURGE')).to.equal(true);
  });

  it('a delete in one process stops every process serving the file, and purges its URLs at the CDN', async () => {
    const alice = await env.createAccount();
    const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(1000, 3), json: true });
    const { url, filename } = res.body.data as { url: string; filename: string };
    expect((await viaSecond(url)).status).to.equal(200);
    expect((await env.api.delete(`/api/user/images/${filename}`, { key: alice.apiKey })).status).to.equal(200);
    expect((await getWithHost(url)).status).to.equal(404);
    expect((await viaSecond(url)).status).to.equal(404);
    await eventually(async () => purged.some((p) => p.url === url));
    expect(purged.find((p) => p.url === url)!.authorization).to.equal(undefined);
  });

  it("a privacy change purges at the CDN the thumbnail URLs it cached while the file was public", async () => {
    const alice = await env.createAccount();
    const still = await sharp({ create: { width: 32, height: 24, channels: 3, background: 'red' } }).png().toBuffer();
    const { filename } = (await upload(env, { key: alice.apiKey, bytes: still, name: 'still.png', json: true })).body.data as { filename: string };
    const thumbnailsOf = async () => {
      const uploads = (await env.api.get('/api/user/dashboard?limit=100', { key: alice.apiKey })).body.data.uploads as { filename: string; thumbnailUrl: string | null; previewUrl: string | null }[];
      const record = uploads.find((u) => u.filename === filename)!;
      return [record.thumbnailUrl, record.previewUrl];
    };
    await eventually(async () => (await thumbnailsOf()).every(Boolean), 30_000);
    const publicUrls = await thumbnailsOf();
    const res = await env.api.patch(`/api/user/images/${filename}/privacy`, { key: alice.apiKey, json: { isPrivate: true } });
    expect(res.status, res.text).to.equal(200);
    expect(await thumbnailsOf()).to.not.deep.equal(publicUrls);
    await eventually(async () => publicUrls.every((u) => purged.some((p) => p.url === u)));
  });

  it('a replace makes every process serve the new bytes', async () => {
    const alice = await env.createAccount();
    const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(1000, 1), json: true });
    const { url, filename } = res.body.data as { url: string; filename: string };
    const before = await viaSecond(url);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(pngBytes(1200, 2))]), 'v2.png');
    expect((await env.api.patch(`/api/user/images/${filename}/replace`, { key: alice.apiKey, body: form })).status).to.equal(200);
    expect((await viaSecond(url)).body.equals(pngBytes(1200, 2))).to.equal(true);
    expect((await viaSecond(url)).headers.etag).not.to.equal(before.headers.etag);
  });
});

describe('CDN purge with a method and credentials of its own', () => {
  it('uses CDN_PURGE_METHOD and sends CDN_PURGE_AUTHORIZATION, retrying while the CDN fails', async () => {
    const seen: { method: string; url: string; authorization: string | undefined }[] = [];
    let failuresLeft = 1;
    const cdnPort = await freePort();
    const cdn = createServer((req, res) => {
      seen.push({ method: req.method!, url: new URL(req.url!, 'http://cdn').searchParams.get('url')!, authorization: req.headers.authorization });
      if (failuresLeft-- > 0) return res.writeHead(503).end('busy');
      res.end('ok');
    });
    await new Promise<void>((resolve) => cdn.listen(cdnPort, '127.0.0.1', resolve));
    const env = await createTestEnv({
      workers: true,
      env: { CDN_PURGE_URL: `http://127.0.0.1:${cdnPort}/purge?url={url}`, CDN_PURGE_METHOD: 'POST', CDN_PURGE_AUTHORIZATION: 'Bearer cdn-token' },
    });
    try {
      const alice = await env.createAccount();
      const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(1000, 4), json: true });
      const { url, filename } = res.body.data as { url: string; filename: string };
      expect((await env.api.delete(`/api/user/images/${filename}`, { key: alice.apiKey })).status).to.equal(200);
      // The first attempt meets a 503; the job's retry must get through.
      const queue = env.container.jobs.queue('cache-purge');
      await eventually(async () => {
        for (const job of await queue.getJobs(['delayed'])) await job.promote();
        return seen.filter((p) => p.url === url).length >= 2;
      }, 10_000);
      expect(seen.every((p) => p.method === 'POST' && p.authorization === 'Bearer cdn-token')).to.equal(true);
    } finally {
      await env.close();
      cdn.close();
    }
  });
});
