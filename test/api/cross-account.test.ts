import { expect } from 'chai';
import { pngBytes } from '../helpers/media.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, getWithHost, upload } from '../helpers/uploads.js';

/**
 * Another account's file, folder or key is always 404 — the same answer as for something that does
 * not exist — and nothing of it changes.
 */
describe('cross-account matrix', () => {
  let env: TestEnv;
  let alice: { id: string; username: string; apiKey: string };
  let bob: { id: string; username: string; apiKey: string };
  let file: { url: string; filename: string };
  let folderId: string;
  let folderKey: string;

  before(async () => {
    env = await createTestEnv();
    alice = await env.createAccount({ plan: 'pro' });
    bob = await env.createAccount({ plan: 'pro' });
    file = (await upload(env, { key: alice.apiKey, bytes: pngBytes(1500), json: true })).body.data;
    folderId = (await env.api.post('/api/user/folders', { key: alice.apiKey, json: { name: 'private' } })).body.data.id;
    await env.api.patch(`/api/user/images/${file.filename}/move`, { key: alice.apiKey, json: { folderId } });
    folderKey = (await env.api.post(`/api/user/folders/${folderId}/key`, { key: alice.apiKey })).body.data.apiKey;
  });
  after(() => env.close());

  const replaceForm = () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(pngBytes(900, 3))]), 'x.png');
    return form;
  };

  const attempts: [string, () => Promise<{ status: number; body: { success: boolean } }>][] = [
    ['DELETE /api/user/images/:filename', () => env.api.delete(`/api/user/images/${file.filename}`, { key: bob.apiKey })],
    ['PUT …/rename', () => env.api.put(`/api/user/images/${file.filename}/rename`, { key: bob.apiKey, json: { newFilename: 'mine.png' } })],
    ['PATCH …/replace', () => env.api.patch(`/api/user/images/${file.filename}/replace`, { key: bob.apiKey, body: replaceForm() })],
    ['PATCH …/move', () => env.api.patch(`/api/user/images/${file.filename}/move`, { key: bob.apiKey, json: { folderId: null } })],
    ['GET /api/delete/:filename?apiKey=', () => env.api.get(`/api/delete/${file.filename}?apiKey=${bob.apiKey}`)],
    ['DELETE /api/user/folders/:id', () => env.api.delete(`/api/user/folders/${folderId}`, { key: bob.apiKey })],
    ['POST /api/user/folders/:id/key', () => env.api.post(`/api/user/folders/${folderId}/key`, { key: bob.apiKey })],
    ['DELETE /api/user/folders/:id/key', () => env.api.delete(`/api/user/folders/${folderId}/key`, { key: bob.apiKey })],
    ['POST /api/user/default-folder', () => env.api.post('/api/user/default-folder', { key: bob.apiKey, json: { folderId } })],
    ['GET /api/user/dashboard?folderId=', () => env.api.get(`/api/user/dashboard?folderId=${folderId}`, { key: bob.apiKey })],
    ['PATCH /api/user/images/move into the folder', async () => {
      const own = (await upload(env, { key: bob.apiKey, bytes: pngBytes(100), json: true })).body.data.filename;
      return env.api.patch('/api/user/images/move', { key: bob.apiKey, json: { filenames: [own], folderId } });
    }],
  ];

  for (const [route, attempt] of attempts) {
    it(`${route} with another account's resource answers 404`, async () => {
      const res = await attempt();
      expect(res.status).to.equal(404);
      expect(res.body.success).to.equal(false);
    });
  }

  it('leaves everything of the owner as it was', async () => {
    const [row] = await fileRowsOf(env, alice.id);
    expect(row).to.include({ filename: file.filename, folderId, size: 1500 });
    expect((await getWithHost(file.url)).body.length).to.equal(1500);
    const folders = await env.api.get('/api/user/folders', { key: alice.apiKey });
    expect(folders.body.data.map((f: { id: string }) => f.id)).to.deep.equal([folderId]);
    const keys = await env.api.get('/api/user/folder-keys', { key: alice.apiKey });
    expect(keys.body.data[0].apiKey).to.equal(folderKey);
    const me = await env.api.get('/api/auth/me', { key: bob.apiKey });
    expect(me.body.data.user.defaultUploadFolderId).to.equal(null);
  });

  it('never shows another account\'s files, folders or keys on the dashboard', async () => {
    const res = await env.api.get('/api/user/dashboard', { key: bob.apiKey });
    expect(res.body.data.uploads.map((u: { filename: string }) => u.filename)).not.to.include(file.filename);
    expect(res.body.data.folders).to.deep.equal([]);
    expect(res.body.data.folderKeys).to.deep.equal([]);
  });
});
