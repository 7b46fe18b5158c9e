import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { folderKeys } from '../../shared/db/schema.js';
import { pngBytes } from '../helpers/media.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, upload } from '../helpers/uploads.js';
import { createFolder as createFolderVia } from '../helpers/folders.js';

type Account = { id: string; username: string; apiKey: string };

const FOLDER_KEY = /^fk_[0-9a-f]{6}_[0-9a-f]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

interface FolderKey {
  id: string;
  folderId: string;
  userId: string;
  apiKey: string;
  createdAt: string;
  lastUsedAt: string | null;
  folderName: string;
}

describe('folder keys (Pro)', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv();
  });
  after(() => env.close());

  const createFolder = (account: Account, name: string) => createFolderVia(env, account, name);

  async function proWithFolder(name = 'shared') {
    const account = await env.createAccount({ plan: 'pro' });
    return { account, folderId: await createFolder(account, name) };
  }

  const issue = (key: string, folderId: string) => env.api.post(`/api/user/folders/${folderId}/key`, { key });
  const revoke = (key: string, folderId: string) => env.api.delete(`/api/user/folders/${folderId}/key`, { key });

  async function issued(account: Account, folderId: string): Promise<FolderKey> {
    const res = await issue(account.apiKey, folderId);
    expect(res.status).to.equal(200);
    return res.body.data;
  }

  async function keysOf(account: Account): Promise<FolderKey[]> {
    const res = await env.api.get('/api/user/folder-keys', { key: account.apiKey });
    expect(res.status).to.equal(200);
    return res.body.data;
  }

  const keyRowsOf = (account: Account) => env.container.db.select().from(folderKeys).where(eq(folderKeys.accountId, account.id));

  const uploadWith = (key: string, seed = 0) => upload(env, { key, bytes: pngBytes(800, seed), json: true });

  describe('POST /api/user/folders/:id/key', () => {
    it('issues a key of the spec\'s format with every field, lastUsedAt null', async () => {
      const { account, folderId } = await proWithFolder('screenshots');
      const res = await issue(account.apiKey, folderId);
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      const key = res.body.data as FolderKey;
      expect(key).to.have.all.keys('id', 'folderId', 'userId', 'apiKey', 'createdAt', 'lastUsedAt', 'folderName');
      expect(key).to.include({ folderId, userId: account.id, lastUsedAt: null, folderName: 'screenshots' });
      expect(key.id).to.match(UUID);
      expect(key.apiKey).to.match(FOLDER_KEY);
      expect(new Date(key.createdAt).toISOString()).to.equal(key.createdAt);
      expect(Date.now() - Date.parse(key.createdAt)).to.be.within(-5_000, 60_000);
      expect(await keysOf(account)).to.deep.equal([key]);
    });

    it('refuses non-Pro accounts (403) and issues nothing', async () => {
      const free = await env.createAccount({ plan: 'free' });
      const folderId = await createFolder(free, 'no keys here');
      const res = await issue(free.apiKey, folderId);
      expect(res.status).to.equal(403);
      expect(res.body.success).to.equal(false);
      expect(res.body.error).to.be.a('string');
      expect(await keyRowsOf(free)).to.have.length(0);
    });

    it('answers 404 for another account\'s folder, an unknown id and a non-UUID id, issuing nothing', async () => {
      const { account } = await proWithFolder();
      const other = await proWithFolder();
      for (const folderId of [other.folderId, UNKNOWN_ID, 'not-a-uuid']) {
        const res = await issue(account.apiKey, folderId);
        expect(res.status, folderId).to.equal(404);
        expect(res.body.success).to.equal(false);
      }
      expect(await keyRowsOf(account)).to.have.length(0);
      expect(await keyRowsOf(other.account)).to.have.length(0);
    });

    describe('rotation', () => {
      it('replaces the key: the new one works, the previous one is 403 on the very next upload, lastUsedAt resets', async () => {
        const { account, folderId } = await proWithFolder('rotating');
        const first = await issued(account, folderId);
        expect((await uploadWith(first.apiKey, 1)).status).to.equal(200);
        expect((await keysOf(account))[0]!.lastUsedAt).to.be.a('string');

        const second = await issued(account, folderId);
        expect(second.apiKey).to.match(FOLDER_KEY);
        expect(second.apiKey).not.to.equal(first.apiKey);
        expect(second).to.include({ folderId, userId: account.id, folderName: 'rotating', lastUsedAt: null });
        const listed = await keysOf(account);
        expect(listed).to.have.length(1);
        expect(listed[0]).to.include({ apiKey: second.apiKey, lastUsedAt: null });

        const old = await uploadWith(first.apiKey, 2);
        expect(old.status).to.equal(403);
        expect(old.body.success).to.equal(false);
        expect(await fileRowsOf(env, account.id)).to.have.length(1);

        expect((await uploadWith(second.apiKey, 3)).status).to.equal(200);
        const rows = await fileRowsOf(env, account.id);
        expect(rows).to.have.length(2);
        expect(rows.every((r) => r.folderId === folderId)).to.equal(true);
      });

      it('keeps one active key per folder when two issues race', async () => {
        const { account, folderId } = await proWithFolder('raced');
        const [a, b] = await Promise.all([issue(account.apiKey, folderId), issue(account.apiKey, folderId)]);
        expect(a!.status).to.equal(200);
        expect(b!.status).to.equal(200);
        const listed = await keysOf(account);
        expect(listed).to.have.length(1);
        const active = listed[0]!.apiKey;
        expect([a!.body.data.apiKey, b!.body.data.apiKey]).to.include(active);
        const stale = a!.body.data.apiKey === active ? b!.body.data.apiKey : a!.body.data.apiKey;
        expect((await uploadWith(stale)).status).to.equal(403);
        expect((await uploadWith(active)).status).to.equal(200);
      });
    });

    // The folder may vanish between the service's check and the insert (a foreign-key violation):
    // that is a 404, never a 500.
    it('answers 200 or 404, never 500, when the folder is deleted at the same time', async () => {
      const account = await env.createAccount({ plan: 'pro' });
      const statuses = new Set<number>();
      for (let i = 0; i < 25; i++) {
        const folderId = await createFolder(account, `racing ${i}`);
        const [key, deleted] = await Promise.all([issue(account.apiKey, folderId), env.api.delete(`/api/user/folders/${folderId}`, { key: account.apiKey })]);
        expect(deleted.status).to.equal(200);
        statuses.add(key.status);
      }
      expect([...statuses].filter((s) => s !== 200 && s !== 404)).to.deep.equal([]);
      expect(await keyRowsOf(account)).to.have.length(0);
    });
  });

  describe('GET /api/user/folder-keys', () => {
    it('lists the account\'s keys newest first, with their folder names', async () => {
      const account = await env.createAccount({ plan: 'pro' });
      const folders = [await createFolder(account, 'a'), await createFolder(account, 'b'), await createFolder(account, 'c')];
      const keys: FolderKey[] = [];
      for (const folderId of folders) {
        keys.push(await issued(account, folderId));
        await new Promise((r) => setTimeout(r, 5));
      }
      const res = await env.api.get('/api/user/folder-keys', { key: account.apiKey });
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      expect(res.body.data.map((k: FolderKey) => [k.folderName, k.apiKey])).to.deep.equal([
        ['c', keys[2]!.apiKey],
        ['b', keys[1]!.apiKey],
        ['a', keys[0]!.apiKey],
      ]);

      // A rotated key is the newest.
      await new Promise((r) => setTimeout(r, 5));
      const rotated = await issued(account, folders[0]!);
      expect((await keysOf(account)).map((k) => [k.folderName, k.apiKey])).to.deep.equal([
        ['a', rotated.apiKey],
        ['c', keys[2]!.apiKey],
        ['b', keys[1]!.apiKey],
      ]);
    });

    it('lists an empty array for a Pro account without keys, and never another account\'s keys', async () => {
      const owner = await proWithFolder();
      await issued(owner.account, owner.folderId);
      const other = await env.createAccount({ plan: 'pro' });
      const res = await env.api.get('/api/user/folder-keys', { key: other.apiKey });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ success: true, data: [] });
    });

    it('refuses non-Pro accounts (403)', async () => {
      const free = await env.createAccount({ plan: 'free' });
      const res = await env.api.get('/api/user/folder-keys', { key: free.apiKey });
      expect(res.status).to.equal(403);
      expect(res.body.success).to.equal(false);
      expect(res.body.error).to.be.a('string');
    });
  });

  describe('DELETE /api/user/folders/:id/key', () => {
    it('revokes: the key fails at once (403), deleting again is 404, files stay', async () => {
      const { account, folderId } = await proWithFolder();
      const key = await issued(account, folderId);
      expect((await uploadWith(key.apiKey, 1)).status).to.equal(200);

      const res = await revoke(account.apiKey, folderId);
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      expect(res.body.message).to.be.a('string');

      const refused = await uploadWith(key.apiKey, 2);
      expect(refused.status).to.equal(403);
      expect(refused.body.success).to.equal(false);
      expect(await keysOf(account)).to.deep.equal([]);
      expect(await keyRowsOf(account)).to.have.length(0);
      const rows = await fileRowsOf(env, account.id);
      expect(rows).to.have.length(1);
      expect(rows[0]!.folderId).to.equal(folderId);

      const again = await revoke(account.apiKey, folderId);
      expect(again.status).to.equal(404);
      expect(again.body.success).to.equal(false);
    });

    it('answers 404 for another account\'s folder and leaves its key working', async () => {
      const owner = await proWithFolder();
      const key = await issued(owner.account, owner.folderId);
      const intruder = await env.createAccount({ plan: 'pro' });
      const res = await revoke(intruder.apiKey, owner.folderId);
      expect(res.status).to.equal(404);
      expect(res.body.success).to.equal(false);
      expect((await keysOf(owner.account)).map((k) => k.apiKey)).to.deep.equal([key.apiKey]);
      expect((await uploadWith(key.apiKey)).status).to.equal(200);
    });
  });

  describe('uploading with a folder key (POST /api/upload)', () => {
    it('files into its folder, ignoring the default upload folder, and sets lastUsedAt', async () => {
      const { account, folderId } = await proWithFolder('keyed');
      const elsewhere = await createFolder(account, 'default');
      await env.api.post('/api/user/default-folder', { key: account.apiKey, json: { folderId: elsewhere } });
      const key = await issued(account, folderId);

      const before = Date.now();
      const res = await uploadWith(key.apiKey);
      expect(res.status).to.equal(200);
      const [row] = await fileRowsOf(env, account.id);
      expect(row).to.include({ filename: res.body.data.filename, folderId });

      const [listed] = await keysOf(account);
      expect(listed!.lastUsedAt).to.be.a('string');
      expect(Date.parse(listed!.lastUsedAt!)).to.be.within(before - 5_000, Date.now() + 5_000);
      const dashboard = await env.api.get(`/api/user/dashboard?folderId=${folderId}`, { key: account.apiKey });
      expect(dashboard.body.data.uploads.map((u: { filename: string }) => u.filename)).to.deep.equal([res.body.data.filename]);

      // The primary key still uses the default folder.
      const primary = await uploadWith(account.apiKey, 5);
      expect((await fileRowsOf(env, account.id)).find((r) => r.filename === primary.body.data.filename)?.folderId).to.equal(elsewhere);
    });

    it('stops working (403) once the account leaves Pro, storing nothing', async () => {
      const { account, folderId } = await proWithFolder();
      const key = await issued(account, folderId);
      await env.container.services.accounts.setPlan(account.username, 'free');
      const res = await uploadWith(key.apiKey);
      expect(res.status).to.equal(403);
      expect(res.body.success).to.equal(false);
      expect(res.body.error).to.match(/Pro/);
      expect(await fileRowsOf(env, account.id)).to.have.length(0);
      expect(await env.container.services.accounts.uploadsToday(account.id)).to.equal(0);
      expect((await env.api.get('/api/user/folder-keys', { key: account.apiKey })).status).to.equal(403);
    });

    it('refuses an unknown folder key and the key of a banned account (403)', async () => {
      const unknown = await uploadWith(`fk_abcdef_${'0'.repeat(32)}`);
      expect(unknown.status).to.equal(403);
      expect(unknown.body.success).to.equal(false);

      const { account, folderId } = await proWithFolder();
      const key = await issued(account, folderId);
      await env.container.services.accounts.ban(account.username, 'spam');
      const banned = await uploadWith(key.apiKey);
      expect(banned.status).to.equal(403);
      expect(await fileRowsOf(env, account.id)).to.have.length(0);
    });
  });

  describe('a folder key opens no other route', () => {
    it('GET /api/auth/me, /api/user/dashboard and /api/user/folders answer 401, and nothing is created', async () => {
      const { account, folderId } = await proWithFolder();
      const { apiKey } = await issued(account, folderId);
      for (const path of ['/api/auth/me', '/api/user/dashboard', '/api/user/folders']) {
        const res = await env.api.get(path, { key: apiKey });
        expect(res.status, path).to.equal(401);
        expect(res.body.success).to.equal(false);
      }
      expect((await env.api.post('/api/user/folders', { key: apiKey, json: { name: 'sneaky' } })).status).to.equal(401);
      const folders = await env.api.get('/api/user/folders', { key: account.apiKey });
      expect(folders.body.data.map((f: { id: string }) => f.id)).to.deep.equal([folderId]);
    });

    it('cannot manage folder keys (401): no listing, issuing or revoking with it', async () => {
      const { account, folderId } = await proWithFolder();
      const key = await issued(account, folderId);
      expect((await env.api.get('/api/user/folder-keys', { key: key.apiKey })).status).to.equal(401);
      expect((await issue(key.apiKey, folderId)).status).to.equal(401);
      expect((await revoke(key.apiKey, folderId)).status).to.equal(401);
      expect((await keysOf(account)).map((k) => k.apiKey)).to.deep.equal([key.apiKey]);
      expect((await uploadWith(key.apiKey)).status).to.equal(200);
    });
  });
});
