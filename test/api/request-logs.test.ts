import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { files } from '../../shared/db/schema.js';
import { createFolder } from '../helpers/folders.js';
import { captureLogs, type LogLine } from '../helpers/log-capture.js';
import { pngBytes } from '../helpers/media.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { upload } from '../helpers/uploads.js';

describe('log lines written while serving a request', () => {
  const logs = captureLogs();
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ logger: logs.logger });
  });
  after(() => env.close());

  /** A shared album whose one file's object is gone from the disk: its zip fails, and AlbumService logs it. */
  async function albumWithLostObject(): Promise<string> {
    const alice = await env.createAccount();
    const folderId = await createFolder(env, alice, 'Lost');
    const uploaded = await upload(env, { key: alice.apiKey, bytes: pngBytes(900), name: 'lost.png', json: true });
    expect(uploaded.status, uploaded.text).to.equal(200);
    const moved = await env.api.patch(`/api/user/images/${uploaded.body.data.filename}/move`, { key: alice.apiKey, json: { folderId } });
    expect(moved.status, moved.text).to.equal(200);
    const [row] = await env.container.db.select().from(files).where(eq(files.filename, uploaded.body.data.filename));
    await rm(path.join(env.container.config.storage.localRoot, row!.objectKey));
    const shared = await env.api.post(`/api/user/folders/${folderId}/share`, { key: alice.apiKey });
    expect(shared.status, shared.text).to.equal(200);
    return shared.body.data.shareId as string;
  }

  /** Downloads the album's zip as request `reqId`; the body breaks off where the lost object was due. */
  async function download(shareId: string, reqId: string) {
    const res = await env.api.get(`/album/${shareId}/download`, { headers: { 'x-request-id': reqId } }).catch(() => undefined);
    if (res) expect(res.headers.get('x-request-id')).to.equal(reqId);
  }

  const zipFailed = (reqId: string) => (line: LogLine) => line.msg === 'album zip failed' && line.reqId === reqId;

  it("carry the request's id: a service's line has the id of the request line and of X-Request-Id, and no line outside a request has one", async () => {
    const shareId = await albumWithLostObject();
    const written = logs.from();
    await download(shareId, 'zip-of-a-lost-object');
    const serviceLine = await written.waitFor((line) => line.msg === 'album zip failed');
    expect(serviceLine.reqId).to.equal('zip-of-a-lost-object');
    const requestLine = await written.waitFor((line) => line.msg === 'request' && line.path === `/album/${shareId}/download`);
    expect(requestLine.reqId).to.equal('zip-of-a-lost-object');

    // The same service outside any request: no id, none left over from the request before.
    const outside = logs.from();
    const zip = await env.container.services.albums.zip(shareId);
    await new Promise((resolve) => zip.body.on('error', resolve).on('close', resolve).resume());
    expect(await outside.waitFor((line) => line.msg === 'album zip failed')).not.to.have.property('reqId');
  });

  it('each request its own id, when they are served at the same time', async () => {
    const shareId = await albumWithLostObject();
    const written = logs.from();
    const ids = ['concurrent-download-1', 'concurrent-download-2', 'concurrent-download-3'];
    await Promise.all(ids.map((id) => download(shareId, id)));
    for (const id of ids) await written.waitFor(zipFailed(id));
    const failures = written.lines().map((line) => JSON.parse(line) as LogLine).filter((line) => line.msg === 'album zip failed');
    expect(failures.map((line) => line.reqId)).to.have.members(ids);
  });
});
