import { expect } from 'chai';
import { Readable } from 'node:stream';
import { pngBytes } from '../helpers/media.js';
import { createFolder } from '../helpers/folders.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, upload } from '../helpers/uploads.js';

type Account = { id: string; username: string; apiKey: string };
type Listed = { filename: string; originalName: string; size: number; timestamp: string };

// What the dashboard's counts stand on: each folder's count kept on its row by the database, and
// pages that start at a position found in an index. Both must agree with the rows, whatever changed them.
describe('folder counts and listing positions', () => {
  let env: TestEnv;

  before(async () => {
    env = await createTestEnv({ env: { PLAN_FREE_DAILY_LIMIT: '1000', RATE_LIMIT_UPLOADS_PER_MINUTE: '10000' } });
  });
  after(() => env.close());

  const dashboard = (account: Account, query: string) => env.api.get(`/api/user/dashboard?${query}`, { key: account.apiKey });

  /** Each folder's count on the dashboard, and the count of its rows. */
  async function counts(account: Account): Promise<{ shown: Record<string, number>; rows: Record<string, number>; root: number }> {
    const res = await dashboard(account, 'limit=1');
    expect(res.status).to.equal(200);
    const shown = Object.fromEntries(res.body.data.folders.map((f: { id: string; fileCount: number }) => [f.id, f.fileCount]));
    const rows: Record<string, number> = Object.fromEntries(Object.keys(shown).map((id) => [id, 0]));
    let root = 0;
    for (const row of await fileRowsOf(env, account.id)) {
      if (row.folderId) rows[row.folderId] = (rows[row.folderId] ?? 0) + 1;
      else root += 1;
    }
    return { shown, rows, root };
  }

  /** The counts agree with the rows, and a folder's (or the root's) listing says the same total. */
  async function expectCountsRight(account: Account) {
    const { shown, rows, root } = await counts(account);
    expect(shown).to.deep.equal(rows);
    for (const [id, n] of Object.entries(rows)) {
      expect((await dashboard(account, `limit=1&folderId=${id}`)).body.data.pagination.totalUploads, `folder ${id}`).to.equal(n);
    }
    expect((await dashboard(account, 'limit=1&folderId=root')).body.data.pagination.totalUploads, 'root').to.equal(root);
    return shown;
  }

  async function uploadInto(account: Account, folderId: string | null, n: number): Promise<string[]> {
    const principal = (await env.container.repositories.accounts.findById(account.id))!;
    // At once, so the upload charges go as one statement (Batcher) as well as one by one.
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        env.container.services.uploads.upload({ account: principal, folderId }, Readable.from([pngBytes(1000 + i, i)]), { originalName: `f${i}.png`, expiry: null, source: 'api' }),
      ),
    );
    return results.map((r) => r.filename);
  }

  it('keeps every folder\'s count equal to its rows through uploads, moves, deletes and a deleted folder', async () => {
    const alice = await env.createAccount();
    const album = await createFolder(env, alice, 'album');
    const work = await createFolder(env, alice, 'work');
    const inAlbum = await uploadInto(alice, album, 6);
    await uploadInto(alice, null, 3);
    expect(await expectCountsRight(alice)).to.deep.equal({ [album]: 6, [work]: 0 });

    // The default upload folder takes uploads that name none.
    expect((await env.api.post('/api/user/default-folder', { key: alice.apiKey, json: { folderId: work } })).status).to.equal(200);
    const toWork = (await upload(env, { key: alice.apiKey, bytes: pngBytes(1500, 99), json: true })).body.data.filename as string;
    expect(await expectCountsRight(alice)).to.deep.equal({ [album]: 6, [work]: 1 });

    // A batch move out of one folder into another, one back to the root, and a move to where it is.
    const moved = await env.api.patch('/api/user/images/move', { key: alice.apiKey, json: { filenames: inAlbum.slice(0, 3), folderId: work } });
    expect(moved.body.moved).to.have.length(3);
    expect((await env.api.patch(`/api/user/images/${inAlbum[3]}/move`, { key: alice.apiKey, json: { folderId: null } })).status).to.equal(200);
    expect((await env.api.patch(`/api/user/images/${inAlbum[4]}/move`, { key: alice.apiKey, json: { folderId: album } })).status).to.equal(200);
    expect(await expectCountsRight(alice)).to.deep.equal({ [album]: 2, [work]: 4 });

    // Deleted by its owner, and by the maintenance path (expiry, deletion links) that names no owner.
    expect((await env.api.delete(`/api/user/images/${toWork}`, { key: alice.apiKey })).status).to.equal(200);
    const [row] = (await fileRowsOf(env, alice.id)).filter((r) => r.filename === inAlbum[5]);
    await env.container.repositories.fileMaintenance.deleteById(row!.id);
    expect(await expectCountsRight(alice)).to.deep.equal({ [album]: 1, [work]: 3 });

    // A deleted folder's files go to the root; the other folder keeps its count.
    expect((await env.api.delete(`/api/user/folders/${work}`, { key: alice.apiKey })).status).to.equal(200);
    expect(await expectCountsRight(alice)).to.deep.equal({ [album]: 1 });
    expect((await dashboard(alice, 'limit=1')).body.data.pagination.totalUserFiles).to.equal(8);
  });

  it('pages through files of equal sizes and names in every order, each file exactly once', async () => {
    const bob = await env.createAccount();
    const principal = (await env.container.repositories.accounts.findById(bob.id))!;
    // Three sizes and two original names among 13 files: most of every order is ties, broken by id.
    for (let i = 0; i < 13; i++) {
      await env.container.services.uploads.upload({ account: principal, folderId: null }, Readable.from([pngBytes(1000 + (i % 3) * 100, i)]), {
        originalName: i % 2 ? 'same.png' : 'other.png',
        expiry: null,
        source: 'api',
      });
    }
    const all = (await dashboard(bob, 'limit=100')).body.data.uploads as Listed[];
    const keyOf: Record<string, (f: Listed) => string | number> = { timestamp: (f) => f.timestamp, size: (f) => f.size, filename: (f) => f.filename, originalName: (f) => f.originalName };
    for (const sortBy of ['timestamp', 'size', 'filename', 'originalName'] as const) {
      for (const sortOrder of ['asc', 'desc'] as const) {
        const listed: Listed[] = [];
        for (let page = 1; page <= 4; page++) {
          const res = await dashboard(bob, `limit=4&page=${page}&sortBy=${sortBy}&sortOrder=${sortOrder}`);
          expect(res.body.data.pagination).to.include({ currentPage: page, totalPages: 4, totalUploads: 13 });
          listed.push(...(res.body.data.uploads as Listed[]));
        }
        const order = `${sortBy} ${sortOrder}`;
        expect(listed.map((f) => f.filename).sort(), order).to.deep.equal(all.map((f) => f.filename).sort());
        const keys = listed.map(keyOf[sortBy]!);
        const sorted = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        // Names compare by the database's collation, not by code point: only their set is checked.
        if (sortBy !== 'filename') expect(keys, order).to.deep.equal(sortOrder === 'asc' ? sorted : sorted.reverse());
      }
    }
  });
});
