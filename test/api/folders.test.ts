import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { accounts, folderKeys, folders } from '../../shared/db/schema.js';
import { pngBytes } from '../helpers/media.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, upload } from '../helpers/uploads.js';
import { createFolder as createFolderVia } from '../helpers/folders.js';

type Account = { id: string; username: string; apiKey: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('folders', () => {
  let env: TestEnv;
  // Default plan limits on purpose: the Free folder limit under test is the default of 10.
  before(async () => {
    env = await createTestEnv();
  });
  after(() => env.close());

  const createFolder = (account: Account, name: string) => createFolderVia(env, account, name);

  async function folderRowsOf(account: Account) {
    return env.container.db.select().from(folders).where(eq(folders.accountId, account.id));
  }

  async function defaultFolderOf(account: Account): Promise<string | null> {
    const me = await env.api.get('/api/auth/me', { key: account.apiKey });
    expect(me.status).to.equal(200);
    return me.body.data.user.defaultUploadFolderId;
  }

  async function uploadOne(key: string) {
    const res = await upload(env, { key, bytes: pngBytes(600), json: true });
    expect(res.status).to.equal(200);
    return res.body.data as { url: string; filename: string };
  }

  describe('GET /api/user/folders', () => {
    it('lists the account\'s folders as an array under data (not a folders property)', async () => {
      const alice = await env.createAccount();
      const a = await createFolder(alice, 'Holidays');
      const b = await createFolder(alice, 'Receipts');
      const res = await env.api.get('/api/user/folders', { key: alice.apiKey });
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      expect(res.body).not.to.have.property('folders');
      expect(res.body.data).to.be.an('array').with.length(2);
      const byId = new Map(res.body.data.map((f: { id: string }) => [f.id, f]));
      expect(byId.get(a)).to.include({ id: a, name: 'Holidays', userId: alice.id });
      expect(byId.get(b)).to.include({ id: b, name: 'Receipts', userId: alice.id });
    });

    it('lists an empty array for an account without folders, and never another account\'s', async () => {
      const alice = await env.createAccount();
      const bob = await env.createAccount();
      await createFolder(alice, 'Mine');
      const res = await env.api.get('/api/user/folders', { key: bob.apiKey });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ success: true, data: [] });
    });

    it('answers 401 without a key or with an unknown key', async () => {
      expect((await env.api.get('/api/user/folders')).status).to.equal(401);
      expect((await env.api.get('/api/user/folders', { key: 'hfs_unknown' })).status).to.equal(401);
    });
  });

  describe('POST /api/user/folders', () => {
    it('creates a folder and answers it under data', async () => {
      const alice = await env.createAccount();
      const res = await env.api.post('/api/user/folders', { key: alice.apiKey, json: { name: 'Screenshots' } });
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      expect(res.body.data).to.include({ name: 'Screenshots', userId: alice.id });
      expect(res.body.data.id).to.match(UUID);
      const rows = await folderRowsOf(alice);
      expect(rows.map((r) => ({ id: r.id, name: r.name }))).to.deep.equal([{ id: res.body.data.id, name: 'Screenshots' }]);
    });

    it('accepts a name of 40 characters and refuses 41 (400), storing nothing for it', async () => {
      const alice = await env.createAccount();
      const forty = 'x'.repeat(40);
      const ok = await env.api.post('/api/user/folders', { key: alice.apiKey, json: { name: forty } });
      expect(ok.status).to.equal(200);
      expect(ok.body.data.name).to.equal(forty);
      const tooLong = await env.api.post('/api/user/folders', { key: alice.apiKey, json: { name: 'y'.repeat(41) } });
      expect(tooLong.status).to.equal(400);
      expect(tooLong.body.success).to.equal(false);
      expect(tooLong.body.error).to.be.a('string');
      expect((await folderRowsOf(alice)).map((r) => r.name)).to.deep.equal([forty]);
    });

    it('counts characters, not UTF-16 units: 40 emoji are accepted, 41 refused (400)', async () => {
      const alice = await env.createAccount();
      const ok = await env.api.post('/api/user/folders', { key: alice.apiKey, json: { name: '📷'.repeat(40) } });
      expect(ok.status).to.equal(200);
      expect(ok.body.data.name).to.equal('📷'.repeat(40));
      const tooLong = await env.api.post('/api/user/folders', { key: alice.apiKey, json: { name: '🎞'.repeat(41) } });
      expect(tooLong.status).to.equal(400);
      expect(await folderRowsOf(alice)).to.have.length(1);
    });

    it('refuses a missing, non-string, empty or whitespace-only name (400) and stores nothing', async () => {
      const alice = await env.createAccount();
      for (const json of [{}, { name: null }, { name: 42 }, { name: '' }, { name: '   ' }, { name: '\t\n' }]) {
        const res = await env.api.post('/api/user/folders', { key: alice.apiKey, json });
        expect(res.status, JSON.stringify(json)).to.equal(400);
        expect(res.body.success).to.equal(false);
        expect(res.body.error).to.be.a('string');
      }
      expect(await folderRowsOf(alice)).to.have.length(0);
    });

    it('refuses a name the account already uses, ignoring case (409), and keeps the first', async () => {
      const alice = await env.createAccount();
      const id = await createFolder(alice, 'Photos');
      for (const name of ['Photos', 'photos', 'PHOTOS', '  pHoToS  ']) {
        const res = await env.api.post('/api/user/folders', { key: alice.apiKey, json: { name } });
        expect(res.status, name).to.equal(409);
        expect(res.body).to.deep.equal({ success: false, error: `A folder named "${name.trim()}" already exists` });
      }
      const rows = await folderRowsOf(alice);
      expect(rows.map((r) => ({ id: r.id, name: r.name }))).to.deep.equal([{ id, name: 'Photos' }]);
    });

    it('ignores case beyond ASCII too (Été / été)', async () => {
      const alice = await env.createAccount();
      await createFolder(alice, 'Été');
      const res = await env.api.post('/api/user/folders', { key: alice.apiKey, json: { name: 'été' } });
      expect(res.status).to.equal(409);
      expect(await folderRowsOf(alice)).to.have.length(1);
    });

    it('lets two accounts use the same name', async () => {
      const alice = await env.createAccount();
      const bob = await env.createAccount();
      await createFolder(alice, 'Shared name');
      const res = await env.api.post('/api/user/folders', { key: bob.apiKey, json: { name: 'shared NAME' } });
      expect(res.status).to.equal(200);
      expect(res.body.data.userId).to.equal(bob.id);
    });

    describe('Free plan: at most 10 folders', () => {
      it('creates 10 and refuses the 11th with 403, storing nothing for it', async () => {
        const alice = await env.createAccount({ plan: 'free' });
        for (let i = 1; i <= 10; i++) await createFolder(alice, `folder ${i}`);
        const res = await env.api.post('/api/user/folders', { key: alice.apiKey, json: { name: 'folder 11' } });
        expect(res.status).to.equal(403);
        expect(res.body).to.deep.equal({ success: false, error: 'The plan allows 10 folders; upgrade to Pro for unlimited folders' });
        const rows = await folderRowsOf(alice);
        expect(rows).to.have.length(10);
        expect(rows.map((r) => r.name)).not.to.include('folder 11');
      });

      it('never passes the limit under 15 concurrent creations', async () => {
        const alice = await env.createAccount({ plan: 'free' });
        const results = await Promise.all(
          Array.from({ length: 15 }, (_, i) => env.api.post('/api/user/folders', { key: alice.apiKey, json: { name: `parallel ${i}` } })),
        );
        const statuses = results.map((r) => r.status).sort();
        expect(statuses.filter((s) => s === 200)).to.have.length(10);
        expect(statuses.filter((s) => s === 403)).to.have.length(5);
        expect(await folderRowsOf(alice)).to.have.length(10);
        const listed = await env.api.get('/api/user/folders', { key: alice.apiKey });
        expect(listed.body.data).to.have.length(10);
      });

      it('frees a slot when a folder is deleted', async () => {
        const alice = await env.createAccount({ plan: 'free' });
        const ids: string[] = [];
        for (let i = 1; i <= 10; i++) ids.push(await createFolder(alice, `f${i}`));
        expect((await env.api.delete(`/api/user/folders/${ids[0]}`, { key: alice.apiKey })).status).to.equal(200);
        const res = await env.api.post('/api/user/folders', { key: alice.apiKey, json: { name: 'f11' } });
        expect(res.status).to.equal(200);
        expect(await folderRowsOf(alice)).to.have.length(10);
      });
    });

    it('Pro: has no folder limit (12 folders)', async () => {
      const alice = await env.createAccount({ plan: 'pro' });
      for (let i = 1; i <= 12; i++) await createFolder(alice, `pro ${i}`);
      expect(await folderRowsOf(alice)).to.have.length(12);
      const listed = await env.api.get('/api/user/folders', { key: alice.apiKey });
      expect(listed.body.data).to.have.length(12);
    });
  });

  describe('DELETE /api/user/folders/:id', () => {
    it('deletes the folder and moves its files to the root library', async () => {
      const alice = await env.createAccount();
      const id = await createFolder(alice, 'Old');
      const other = await createFolder(alice, 'Kept');
      await env.api.post('/api/user/default-folder', { key: alice.apiKey, json: { folderId: id } });
      const inFolder = [await uploadOne(alice.apiKey), await uploadOne(alice.apiKey)];
      await env.api.post('/api/user/default-folder', { key: alice.apiKey, json: { folderId: other } });
      const inOther = await uploadOne(alice.apiKey);
      expect((await fileRowsOf(env, alice.id)).filter((r) => r.folderId === id)).to.have.length(2);

      const res = await env.api.delete(`/api/user/folders/${id}`, { key: alice.apiKey });
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      expect(res.body.message).to.be.a('string');

      expect((await folderRowsOf(alice)).map((r) => r.id)).to.deep.equal([other]);
      const rows = await fileRowsOf(env, alice.id);
      expect(rows).to.have.length(3);
      for (const file of inFolder) expect(rows.find((r) => r.filename === file.filename)?.folderId).to.equal(null);
      expect(rows.find((r) => r.filename === inOther.filename)?.folderId).to.equal(other);

      const dashboard = await env.api.get('/api/user/dashboard?folderId=root', { key: alice.apiKey });
      expect(dashboard.body.data.uploads.map((u: { filename: string }) => u.filename)).to.have.members(inFolder.map((f) => f.filename));
      for (const u of dashboard.body.data.uploads) expect(u.folderId).to.equal(null);
      const listed = await env.api.get('/api/user/folders', { key: alice.apiKey });
      expect(listed.body.data.map((f: { id: string }) => f.id)).to.deep.equal([other]);
    });

    it('revokes the folder\'s key at once: the next upload with it is 403 and stores nothing', async () => {
      const alice = await env.createAccount({ plan: 'pro' });
      const id = await createFolder(alice, 'Keyed');
      const issued = await env.api.post(`/api/user/folders/${id}/key`, { key: alice.apiKey });
      expect(issued.status).to.equal(200);
      const folderKey: string = issued.body.data.apiKey;
      await uploadOne(folderKey);

      expect((await env.api.delete(`/api/user/folders/${id}`, { key: alice.apiKey })).status).to.equal(200);
      const res = await upload(env, { key: folderKey, bytes: pngBytes(700, 2), json: true });
      expect(res.status).to.equal(403);
      expect(res.body.success).to.equal(false);
      expect(await fileRowsOf(env, alice.id)).to.have.length(1);
      expect(await env.container.db.select().from(folderKeys).where(eq(folderKeys.accountId, alice.id))).to.have.length(0);
      const keys = await env.api.get('/api/user/folder-keys', { key: alice.apiKey });
      expect(keys.body.data).to.deep.equal([]);
    });

    it('resets a default upload folder pointing at it to the root library', async () => {
      const alice = await env.createAccount();
      const id = await createFolder(alice, 'Inbox');
      await env.api.post('/api/user/default-folder', { key: alice.apiKey, json: { folderId: id } });
      expect(await defaultFolderOf(alice)).to.equal(id);

      expect((await env.api.delete(`/api/user/folders/${id}`, { key: alice.apiKey })).status).to.equal(200);
      expect(await defaultFolderOf(alice)).to.equal(null);
      const file = await uploadOne(alice.apiKey);
      expect((await fileRowsOf(env, alice.id)).find((r) => r.filename === file.filename)?.folderId).to.equal(null);
    });

    it('answers 404 for an unknown id, a non-UUID id and another account\'s folder, deleting nothing', async () => {
      const alice = await env.createAccount();
      const bob = await env.createAccount();
      const bobs = await createFolder(bob, 'Bob only');
      for (const [key, id] of [
        [alice.apiKey, UNKNOWN_ID],
        [alice.apiKey, 'not-a-uuid'],
        [alice.apiKey, bobs],
      ] as const) {
        const res = await env.api.delete(`/api/user/folders/${id}`, { key });
        expect(res.status, id).to.equal(404);
        expect(res.body.success).to.equal(false);
      }
      expect((await folderRowsOf(bob)).map((r) => r.id)).to.deep.equal([bobs]);
    });

    it('answers 404 when the same folder is deleted twice', async () => {
      const alice = await env.createAccount();
      const id = await createFolder(alice, 'Once');
      expect((await env.api.delete(`/api/user/folders/${id}`, { key: alice.apiKey })).status).to.equal(200);
      expect((await env.api.delete(`/api/user/folders/${id}`, { key: alice.apiKey })).status).to.equal(404);
    });
  });

  describe('POST /api/user/default-folder', () => {
    it('sets an own folder as the default; uploads with the primary key then land in it', async () => {
      const alice = await env.createAccount();
      const id = await createFolder(alice, 'Default');
      const res = await env.api.post('/api/user/default-folder', { key: alice.apiKey, json: { folderId: id } });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ success: true, defaultUploadFolderId: id });
      expect(await defaultFolderOf(alice)).to.equal(id);

      const file = await uploadOne(alice.apiKey);
      expect((await fileRowsOf(env, alice.id)).find((r) => r.filename === file.filename)?.folderId).to.equal(id);
      const dashboard = await env.api.get(`/api/user/dashboard?folderId=${id}`, { key: alice.apiKey });
      expect(dashboard.body.data.uploads.map((u: { filename: string }) => u.filename)).to.deep.equal([file.filename]);
    });

    it('null resets it to the root library', async () => {
      const alice = await env.createAccount();
      const id = await createFolder(alice, 'Temporary default');
      await env.api.post('/api/user/default-folder', { key: alice.apiKey, json: { folderId: id } });
      const res = await env.api.post('/api/user/default-folder', { key: alice.apiKey, json: { folderId: null } });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ success: true, defaultUploadFolderId: null });
      expect(await defaultFolderOf(alice)).to.equal(null);
      const file = await uploadOne(alice.apiKey);
      expect((await fileRowsOf(env, alice.id)).find((r) => r.filename === file.filename)?.folderId).to.equal(null);
    });

    it('answers 404 for another account\'s folder and changes nothing', async () => {
      const alice = await env.createAccount();
      const bob = await env.createAccount();
      const bobs = await createFolder(bob, 'Bob private');
      const alices = await createFolder(alice, 'Alice own');
      await env.api.post('/api/user/default-folder', { key: alice.apiKey, json: { folderId: alices } });

      const res = await env.api.post('/api/user/default-folder', { key: alice.apiKey, json: { folderId: bobs } });
      expect(res.status).to.equal(404);
      expect(res.body.success).to.equal(false);
      expect(await defaultFolderOf(alice)).to.equal(alices);
      const [row] = await env.container.db.select().from(accounts).where(eq(accounts.id, alice.id));
      expect(row!.defaultUploadFolderId).to.equal(alices);
      const file = await uploadOne(alice.apiKey);
      expect((await fileRowsOf(env, alice.id)).find((r) => r.filename === file.filename)?.folderId).to.equal(alices);
      expect(await fileRowsOf(env, bob.id)).to.have.length(0);
    });

    it('answers 404 for an unknown id and 400 for a malformed one, and changes nothing', async () => {
      const alice = await env.createAccount();
      const unknown = await env.api.post('/api/user/default-folder', { key: alice.apiKey, json: { folderId: UNKNOWN_ID } });
      expect(unknown.status).to.equal(404);
      expect(unknown.body.success).to.equal(false);
      for (const folderId of ['not-a-uuid', 42, '']) {
        const res = await env.api.post('/api/user/default-folder', { key: alice.apiKey, json: { folderId } });
        expect(res.status, String(folderId)).to.equal(400);
        expect(res.body.success).to.equal(false);
      }
      expect(await defaultFolderOf(alice)).to.equal(null);
    });

    // The folder may vanish between the service's check and the update (a foreign-key violation):
    // that is a 404, never a 500. (PGlite serializes the two requests; PostgreSQL shows the race.)
    it('answers 200 or 404, never 500, when the folder is deleted at the same time', async () => {
      const alice = await env.createAccount({ plan: 'pro' });
      const statuses = new Set<number>();
      for (let i = 0; i < 25; i++) {
        const id = await createFolder(alice, `racing ${i}`);
        const [set, deleted] = await Promise.all([
          env.api.post('/api/user/default-folder', { key: alice.apiKey, json: { folderId: id } }),
          env.api.delete(`/api/user/folders/${id}`, { key: alice.apiKey }),
        ]);
        expect(deleted.status).to.equal(200);
        statuses.add(set.status);
      }
      expect([...statuses].filter((s) => s !== 200 && s !== 404)).to.deep.equal([]);
      expect(await defaultFolderOf(alice)).to.equal(null);
    });

    it('answers 400 when folderId is missing or neither a string nor null', async () => {
      const alice = await env.createAccount();
      for (const json of [{}, { folderId: 7 }, { folderId: true }]) {
        const res = await env.api.post('/api/user/default-folder', { key: alice.apiKey, json });
        expect(res.status, JSON.stringify(json)).to.equal(400);
        expect(res.body.success).to.equal(false);
      }
      expect(await defaultFolderOf(alice)).to.equal(null);
    });
  });
});
