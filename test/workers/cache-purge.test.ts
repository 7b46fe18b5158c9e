import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import { pngBytes } from '../helpers/media.js';
import { freePort } from '../helpers/ports.js';
import { createTestEnv, startSecondWebProcess, type TestEnv } from '../helpers/test-env.js';
import { getWithHost, upload } from '../helpers/uploads.js';
import { eventually } from '../helpers/eventually.js';


describe('cache purge across web processes and at the CDN', () => {
  let env: TestEnv;
  let second: Awaited<ReturnType<typeof startSecondWebProcess>>;
  let cdn: Server;
  const purged: { method: string; url: string }[] = [];

  before(async () => {
    const cdnPort = await freePort();
    cdn = createServer((req, res) => {
      purged.push({ method: req.method!, url: new URL(req.url!, 'http://cdn').searchParams.get('url')! });
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
    await eventually(async () => (await viaSecond(url)).status === 404);
    expect((await viaSecond(renamed.body.newUrl)).status).to.equal(200);

    await eventually(async () => purged.some((p) => p.url === url));
    expect(purged.every((p) => p.method === 'PURGE')).to.equal(true);
    const standard = `${env.container.config.siteUrl}/u/${alice.username}/${filename}`;
    expect(purged.map((p) => p.url)).to.include.members([url, standard, renamed.body.newUrl]);
  });

  it('a replace makes every process serve the new bytes', async () => {
    const alice = await env.createAccount();
    const res = await upload(env, { key: alice.apiKey, bytes: pngBytes(1000, 1), json: true });
    const { url, filename } = res.body.data as { url: string; filename: string };
    const before = await viaSecond(url);
    const form = new FormData();
    form.append('file', new Blob([pngBytes(1200, 2)]), 'v2.png');
    expect((await env.api.patch(`/api/user/images/${filename}/replace`, { key: alice.apiKey, body: form })).status).to.equal(200);
    await eventually(async () => (await viaSecond(url)).body.equals(pngBytes(1200, 2)));
    expect((await viaSecond(url)).headers.etag).not.to.equal(before.headers.etag);
  });
});
