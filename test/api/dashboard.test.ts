import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { Readable } from 'node:stream';
import { accounts, files as filesTable } from '../../shared/db/schema.js';
import type { UploadResult } from '../../shared/contracts/upload.contract.js';
import { pngBytes } from '../helpers/media.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { upload } from '../helpers/uploads.js';

type Account = { id: string; username: string; apiKey: string };
type Upload = {
  filename: string;
  originalName: string;
  url: string;
  timestamp: string;
  updatedAt: string | null;
  size: number;
  folderId: string | null;
  source: string;
  isPrivate: boolean;
  mimeType: string;
  expiry: string | null;
  expiresAt: string | null;
  moderationState: string;
  thumbnailUrl: string | null;
  previewUrl: string | null;
};

const DAILY_LIMIT = 1000;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

// Names that tell a real substring search from one where % and _ act as wildcards.
const SPECIAL_NAMES = ['Holiday-Beach.png', 'holiday-mountains.png', '100%-done.png', '100x-done.png', 'under_score.png', 'underXscore.png'];
const PHOTO_COUNT = 19;

describe('GET /api/user/dashboard', () => {
  let env: TestEnv;
  let alice: Account;
  let folderId: string;
  /** alice's 25 files in upload order: 19 photos at the root, then the special names in `folderId` */
  let files: (UploadResult & { size: number; folderId: string | null })[];

  before(async () => {
    env = await createTestEnv({ env: { PLAN_FREE_DAILY_LIMIT: String(DAILY_LIMIT), RATE_LIMIT_UPLOADS_PER_MINUTE: '10000' } });
    alice = await env.createAccount();
    folderId = (await env.api.post('/api/user/folders', { key: alice.apiKey, json: { name: 'album' } })).body.data.id;
    const account = (await env.container.repositories.accounts.findById(alice.id))!;
    const names = [...Array.from({ length: PHOTO_COUNT }, (_, i) => `photo-${String(i).padStart(2, '0')}.png`), ...SPECIAL_NAMES];
    files = [];
    // One after another, so upload times follow this order; sizes are all different and in another order.
    for (const [i, name] of names.entries()) {
      const size = 1000 + ((i * 7) % names.length) * 10;
      const inFolder = i >= PHOTO_COUNT ? folderId : null;
      const result = await env.container.services.uploads.upload(
        { account, folderId: inFolder },
        Readable.from([pngBytes(size, i)]),
        { originalName: name, expiry: null, source: 'api' },
      );
      files.push({ ...result, size, folderId: inFolder });
    }
  });
  after(() => env.close());

  const dashboard = (query = '', key = alice.apiKey) => env.api.get(`/api/user/dashboard${query}`, { key });
  const filenamesOf = (res: { body: { data: { uploads: Upload[] } } }) => res.body.data.uploads.map((u) => u.filename);
  const search = (term: string) => dashboard(`?limit=100&search=${encodeURIComponent(term)}`);
  const byOriginal = (name: string) => files.find((f) => f.originalFilename === name)!;

  describe('response shape', () => {
    it('answers {success, data: {user, uploads, folders, folderKeys, pagination}} and no top-level images', async () => {
      const res = await dashboard();
      expect(res.status).to.equal(200);
      expect(res.body).to.have.all.keys('success', 'data');
      expect(res.body.success).to.equal(true);
      expect(res.body).not.to.have.property('images');
      expect(res.body.data).to.have.all.keys('user', 'uploads', 'folders', 'folderKeys', 'pagination');
      expect(res.body.data.uploads).to.be.an('array');
      expect(res.body.data.folders.map((f: { id: string }) => f.id)).to.deep.equal([folderId]);
      expect(res.body.data.folders[0]).to.include({ id: folderId, name: 'album', userId: alice.id });
      expect(res.body.data.folderKeys).to.deep.equal([]);
    });

    it('describes the user with today\'s usage and what remains, connections and no ban', async () => {
      const { user } = (await dashboard()).body.data;
      expect(user).to.include({ id: alice.id, username: alice.username, apiKey: alice.apiKey, plan: 'free', status: 'active', banInfo: null });
      expect(user.defaultUploadFolderId).to.equal(null);
      expect(user.limits).to.include({ dailyLimit: DAILY_LIMIT });
      const storage = files.reduce((sum, f) => sum + f.size, 0);
      expect(user.usage).to.include({ count: 25, todayCount: 25, remaining: DAILY_LIMIT - 25, monthlyStorageUsed: storage });
      expect(user.usage.currentMonth).to.match(/^\d{4}-\d{2}$/);
      expect(user.connections).to.deep.equal({
        discord: { connected: false, username: null },
        google: { connected: false, username: null },
      });
    });

    it('shows a connected account as {connected: true, username}', async () => {
      const carol = await env.createAccount();
      await env.container.db.update(accounts).set({ discordUsername: 'carol#1234' }).where(eq(accounts.id, carol.id));
      const { user } = (await dashboard('', carol.apiKey)).body.data;
      expect(user.connections).to.deep.equal({
        discord: { connected: true, username: 'carol#1234' },
        google: { connected: false, username: null },
      });
    });

    it('counts today\'s uploads through the upload route too', async () => {
      const dave = await env.createAccount();
      await Promise.all([1, 2, 3].map((seed) => upload(env, { key: dave.apiKey, bytes: pngBytes(300, seed) })));
      const { user } = (await dashboard('', dave.apiKey)).body.data;
      expect(user.usage).to.include({ count: 3, todayCount: 3, remaining: DAILY_LIMIT - 3 });
    });

    it('shows banInfo {reason, bannedAt, expiresAt} once the account is banned', async () => {
      const carol = await env.createAccount();
      const before = Date.now();
      await env.container.services.accounts.ban(carol.username, 'spam');
      const res = await dashboard('', carol.apiKey);
      expect(res.status).to.equal(200);
      const { user } = res.body.data;
      expect(user.status).to.equal('banned');
      expect(user.banInfo).to.have.all.keys('reason', 'bannedAt', 'expiresAt');
      expect(user.banInfo).to.include({ reason: 'spam', expiresAt: null });
      expect(Date.parse(user.banInfo.bannedAt)).to.be.within(before - 5_000, Date.now() + 5_000);

      const until = new Date(Date.now() + 86_400_000);
      const erin = await env.createAccount();
      await env.container.services.accounts.ban(erin.username, 'abuse', until);
      const { user: banned } = (await dashboard('', erin.apiKey)).body.data;
      expect(banned.banInfo).to.include({ reason: 'abuse', expiresAt: until.toISOString() });
    });

    it('lists each upload with the spec\'s fields and values', async () => {
      const frank = await env.createAccount();
      const bytes = pngBytes(4321, 9);
      const res = await upload(env, { key: frank.apiKey, bytes, name: 'Sunset at sea.png', json: true });
      expect(res.status).to.equal(200);
      const listed = await dashboard('', frank.apiKey);
      expect(listed.body.data.uploads).to.have.length(1);
      const [record] = listed.body.data.uploads as Upload[];
      expect(record).to.include.all.keys('filename', 'originalName', 'url', 'timestamp', 'updatedAt', 'size', 'folderId', 'source', 'isPrivate');
      expect(record).to.include({
        filename: res.body.data.filename,
        originalName: 'Sunset at sea.png',
        url: res.body.data.url,
        updatedAt: null,
        size: 4321,
        folderId: null,
        source: 'api',
        isPrivate: false,
        // Beyond the spec, for the dashboard (no worker runs here: no thumbnails yet).
        mimeType: 'image/png',
        expiry: null,
        expiresAt: null,
        moderationState: 'allowed',
        thumbnailUrl: null,
        previewUrl: null,
      });
      expect(new Date(record!.timestamp).toISOString()).to.equal(record!.timestamp);
      expect(Date.now() - Date.parse(record!.timestamp)).to.be.within(-5_000, 60_000);
    });

    it('gives each upload its expiry label and time', async () => {
      const grace = await env.createAccount();
      const res = await upload(env, { key: grace.apiKey, bytes: pngBytes(1200, 4), fields: { expiry: '1d' }, json: true });
      expect(res.status).to.equal(200);
      const [record] = (await dashboard('', grace.apiKey)).body.data.uploads as Upload[];
      expect(record!.expiry).to.equal('1d');
      expect(Date.parse(record!.expiresAt!) - Date.parse(record!.timestamp)).to.be.within(86_400_000 - 5_000, 86_400_000 + 5_000);
    });

    it('lists a Pro account\'s folder keys', async () => {
      const pro = await env.createAccount({ plan: 'pro' });
      const proFolder = (await env.api.post('/api/user/folders', { key: pro.apiKey, json: { name: 'keyed' } })).body.data.id;
      const key = (await env.api.post(`/api/user/folders/${proFolder}/key`, { key: pro.apiKey })).body.data;
      const { folderKeys } = (await dashboard('', pro.apiKey)).body.data;
      expect(folderKeys).to.deep.equal([key]);
    });
  });

  describe('pagination', () => {
    it('pages 10 at a time by default, newest first', async () => {
      const res = await dashboard();
      expect(filenamesOf(res)).to.deep.equal(files.slice(-10).reverse().map((f) => f.filename));
      expect(res.body.data.pagination).to.deep.equal({
        currentPage: 1,
        totalPages: 3,
        totalUploads: 25,
        totalUserFiles: 25,
        limit: 10,
        hasNextPage: true,
        hasPrevPage: false,
      });
    });

    it('walks pages 1 to 3 of 25 files with limit 10: every file once, counts and flags right', async () => {
      const expected = [
        { currentPage: 1, count: 10, hasNextPage: true, hasPrevPage: false },
        { currentPage: 2, count: 10, hasNextPage: true, hasPrevPage: true },
        { currentPage: 3, count: 5, hasNextPage: false, hasPrevPage: true },
      ];
      const seen: string[] = [];
      for (const { currentPage, count, hasNextPage, hasPrevPage } of expected) {
        const res = await dashboard(`?page=${currentPage}&limit=10`);
        expect(res.status).to.equal(200);
        expect(res.body.data.uploads).to.have.length(count);
        expect(res.body.data.pagination).to.deep.equal({
          currentPage,
          totalPages: 3,
          totalUploads: 25,
          totalUserFiles: 25,
          limit: 10,
          hasNextPage,
          hasPrevPage,
        });
        seen.push(...filenamesOf(res));
      }
      expect(seen).to.deep.equal([...files].reverse().map((f) => f.filename));
    });

    it('answers an empty page past the last one', async () => {
      const res = await dashboard('?page=4&limit=10');
      expect(res.status).to.equal(200);
      expect(res.body.data.uploads).to.deep.equal([]);
      expect(res.body.data.pagination).to.include({ currentPage: 4, totalPages: 3, totalUploads: 25, hasNextPage: false, hasPrevPage: true });
    });

    it('accepts limit 100 (and 1), refuses 101, 0, negative and non-integer limits (400)', async () => {
      const hundred = await dashboard('?limit=100');
      expect(hundred.status).to.equal(200);
      expect(hundred.body.data.uploads).to.have.length(25);
      expect(hundred.body.data.pagination).to.include({ limit: 100, totalPages: 1, hasNextPage: false, hasPrevPage: false });
      const one = await dashboard('?limit=1&page=25');
      expect(filenamesOf(one)).to.deep.equal([files[0]!.filename]);
      expect(one.body.data.pagination).to.include({ totalPages: 25, hasNextPage: false, hasPrevPage: true });
      for (const limit of ['101', '0', '-1', '2.5', 'abc', '1e1', '0x10', ' 5', '']) {
        const res = await dashboard(`?limit=${limit}`);
        expect(res.status, limit).to.equal(400);
        expect(res.body.success).to.equal(false);
        expect(res.body.error).to.be.a('string');
      }
    });

    it('refuses page 0, negative, non-integer and non-numeric pages (400)', async () => {
      for (const page of ['0', '-1', '1.5', 'abc', '1e1', '']) {
        const res = await dashboard(`?page=${page}`);
        expect(res.status, page).to.equal(400);
        expect(res.body.success).to.equal(false);
        expect(res.body.error).to.be.a('string');
      }
    });

    it('says there is no next or previous page for an account without files', async () => {
      const empty = await env.createAccount();
      const res = await dashboard('', empty.apiKey);
      expect(res.body.data.uploads).to.deep.equal([]);
      expect(res.body.data.pagination).to.include({ currentPage: 1, totalUploads: 0, totalUserFiles: 0, limit: 10, hasNextPage: false, hasPrevPage: false });
    });
  });

  describe('sorting', () => {
    it('sorts by upload time, newest first by default and oldest first with sortOrder=asc', async () => {
      const inOrder = files.map((f) => f.filename);
      expect(filenamesOf(await dashboard('?limit=100'))).to.deep.equal([...inOrder].reverse());
      expect(filenamesOf(await dashboard('?limit=100&sortBy=timestamp&sortOrder=desc'))).to.deep.equal([...inOrder].reverse());
      expect(filenamesOf(await dashboard('?limit=100&sortOrder=asc'))).to.deep.equal(inOrder);
    });

    it('sorts by size ascending and descending, across pages', async () => {
      const bySize = [...files].sort((a, b) => a.size - b.size);
      const asc = await dashboard('?limit=100&sortBy=size&sortOrder=asc');
      expect(asc.body.data.uploads.map((u: Upload) => u.size)).to.deep.equal(bySize.map((f) => f.size));
      expect(filenamesOf(asc)).to.deep.equal(bySize.map((f) => f.filename));
      const desc = await dashboard('?limit=100&sortBy=size&sortOrder=desc');
      expect(filenamesOf(desc)).to.deep.equal([...bySize].reverse().map((f) => f.filename));
      const secondPage = await dashboard('?limit=10&page=2&sortBy=size&sortOrder=desc');
      expect(filenamesOf(secondPage)).to.deep.equal([...bySize].reverse().slice(10, 20).map((f) => f.filename));
    });

    it('accepts filename and originalName as sort keys', async () => {
      for (const sortBy of ['filename', 'originalName']) {
        const res = await dashboard(`?limit=100&sortBy=${sortBy}&sortOrder=asc`);
        expect(res.status, sortBy).to.equal(200);
        expect(res.body.data.uploads).to.have.length(25);
      }
    });

    it('refuses a sortBy outside the whitelist and a sortOrder other than asc or desc (400)', async () => {
      for (const query of ['?sortBy=password_hash', '?sortBy=createdAt', '?sortBy=id', '?sortBy=size;drop', '?sortOrder=up', '?sortOrder=random']) {
        const res = await dashboard(query);
        expect(res.status, query).to.equal(400);
        expect(res.body.success).to.equal(false);
        expect(res.body.error).to.be.a('string');
      }
    });
  });

  describe('search', () => {
    it('matches original names case-insensitively', async () => {
      for (const term of ['HOLIDAY', 'holiday', 'hOlIdAy']) {
        const res = await search(term);
        expect(res.body.data.uploads.map((u: Upload) => u.originalName).sort(), term).to.deep.equal(['Holiday-Beach.png', 'holiday-mountains.png']);
        expect(res.body.data.pagination).to.include({ totalUploads: 2, totalUserFiles: 25, totalPages: 1 });
      }
      expect(filenamesOf(await search('beach'))).to.deep.equal([byOriginal('Holiday-Beach.png').filename]);
    });

    it('matches stored names case-insensitively', async () => {
      const target = files[3]!;
      const stem = target.filename.replace(/\.png$/, '');
      for (const term of [stem, stem.toLowerCase(), stem.toUpperCase()]) {
        expect(filenamesOf(await search(term)), term).to.deep.equal([target.filename]);
      }
    });

    it('takes % and _ literally', async () => {
      expect(filenamesOf(await search('100%'))).to.deep.equal([byOriginal('100%-done.png').filename]);
      expect(filenamesOf(await search('%'))).to.deep.equal([byOriginal('100%-done.png').filename]);
      expect(filenamesOf(await search('under_score'))).to.deep.equal([byOriginal('under_score.png').filename]);
      expect(filenamesOf(await search('_'))).to.deep.equal([byOriginal('under_score.png').filename]);
    });

    it('pages its matches and finds nothing for an unknown term', async () => {
      const res = await dashboard('?search=photo&limit=10&page=2');
      expect(res.body.data.uploads).to.have.length(9);
      expect(res.body.data.pagination).to.deep.equal({
        currentPage: 2,
        totalPages: 2,
        totalUploads: PHOTO_COUNT,
        totalUserFiles: 25,
        limit: 10,
        hasNextPage: false,
        hasPrevPage: true,
      });
      const none = await search('no-such-file');
      expect(none.body.data.uploads).to.deep.equal([]);
      expect(none.body.data.pagination).to.include({ totalUploads: 0, totalUserFiles: 25, hasNextPage: false });
    });

    // The two names are searched together; a term spanning the end of one and the start of the
    // other must not match.
    it('matches within one name, never across the stored and the original name', async () => {
      const res = await search('png Holiday');
      expect(res.body.data.uploads).to.deep.equal([]);
    });
  });

  describe('folderId', () => {
    it('lists only the files of that folder', async () => {
      const res = await dashboard(`?folderId=${folderId}&limit=100`);
      expect(res.status).to.equal(200);
      expect(filenamesOf(res)).to.have.members(files.filter((f) => f.folderId === folderId).map((f) => f.filename));
      expect(res.body.data.uploads.every((u: Upload) => u.folderId === folderId)).to.equal(true);
      expect(res.body.data.pagination).to.include({ totalUploads: SPECIAL_NAMES.length, totalUserFiles: 25, totalPages: 1 });
    });

    it('root lists only the files outside folders', async () => {
      const res = await dashboard('?folderId=root&limit=100');
      expect(res.status).to.equal(200);
      expect(filenamesOf(res)).to.have.members(files.filter((f) => f.folderId === null).map((f) => f.filename));
      expect(res.body.data.uploads.every((u: Upload) => u.folderId === null)).to.equal(true);
      expect(res.body.data.pagination).to.include({ totalUploads: PHOTO_COUNT, totalUserFiles: 25 });
    });

    it('combines with search', async () => {
      expect(filenamesOf(await dashboard(`?folderId=${folderId}&search=holiday`))).to.have.length(2);
      expect(filenamesOf(await dashboard('?folderId=root&search=holiday'))).to.deep.equal([]);
    });

    it('answers 404 for another account\'s folder and for an unknown folder', async () => {
      const bob = await env.createAccount();
      const bobs = (await env.api.post('/api/user/folders', { key: bob.apiKey, json: { name: 'bob' } })).body.data.id;
      for (const [key, id] of [
        [bob.apiKey, folderId],
        [alice.apiKey, bobs],
        [alice.apiKey, UNKNOWN_ID],
      ] as const) {
        const res = await dashboard(`?folderId=${id}`, key);
        expect(res.status, id).to.equal(404);
        expect(res.body.success).to.equal(false);
        expect(res.body).not.to.have.property('data');
      }
    });
  });

  it('only ever lists the caller\'s own files', async () => {
    const bob = await env.createAccount();
    const bobsFiles = await Promise.all(
      ['Holiday-Beach.png', 'bob.png'].map(async (name, i) => {
        const res = await upload(env, { key: bob.apiKey, bytes: pngBytes(500, 50 + i), name, json: true });
        expect(res.status).to.equal(200);
        return res.body.data.filename as string;
      }),
    );
    const bobsView = await dashboard('?limit=100', bob.apiKey);
    expect(filenamesOf(bobsView)).to.have.members(bobsFiles);
    expect(bobsView.body.data.pagination).to.include({ totalUploads: 2, totalUserFiles: 2 });
    expect(bobsView.body.data.folders).to.deep.equal([]);

    const alicesView = await dashboard('?limit=100');
    expect(filenamesOf(alicesView)).to.have.length(25);
    for (const filename of bobsFiles) expect(filenamesOf(alicesView)).not.to.include(filename);
    expect(filenamesOf(await search('holiday'))).not.to.include.members(bobsFiles);
    expect(filenamesOf(await search(bobsFiles[1]!.replace(/\.png$/, '')))).to.deep.equal([]);
    expect((await dashboard('?folderId=root&limit=100')).body.data.pagination.totalUserFiles).to.equal(25);
  });

  it('keeps totalUserFiles in step with uploads, replaces, deletes and expiry', async () => {
    const carol = await env.createAccount();
    const total = async () => (await dashboard('', carol.apiKey)).body.data.pagination as { totalUploads: number; totalUserFiles: number };
    const names: string[] = [];
    for (let i = 0; i < 3; i++) names.push((await upload(env, { key: carol.apiKey, bytes: pngBytes(400, 60 + i), json: true })).body.data.filename);
    expect(await total()).to.include({ totalUploads: 3, totalUserFiles: 3 });
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(pngBytes(700, 70))]), 'again.png');
    expect((await env.api.patch(`/api/user/images/${names[0]}/replace`, { key: carol.apiKey, body: form })).status).to.equal(200);
    expect(await total()).to.include({ totalUserFiles: 3 });
    expect((await env.api.delete(`/api/user/images/${names[1]}`, { key: carol.apiKey })).status).to.equal(200);
    expect(await total()).to.include({ totalUploads: 2, totalUserFiles: 2 });
    await env.container.db.update(filesTable).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(filesTable.filename, names[2]!));
    expect(await env.container.services.files.sweepExpired()).to.be.at.least(1);
    expect(await total()).to.include({ totalUploads: 1, totalUserFiles: 1 });
  });

  it('answers 401 without a key or with an unknown one', async () => {
    expect((await env.api.get('/api/user/dashboard')).status).to.equal(401);
    expect((await env.api.get('/api/user/dashboard', { key: 'hfs_nope' })).status).to.equal(401);
  });
});

describe("GET /api/user/dashboard: each upload's moderation state", () => {
  let env: TestEnv;
  before(async () => {
    // Checks are queued but no worker runs them: each state is set on the row as a verdict would set it.
    env = await createTestEnv({ env: { MODERATION_ENABLED: 'true' } });
  });
  after(() => env.close());

  it('is pending until judged, then allowed, flagged or blocked; released files and kinds never judged are allowed', async () => {
    const judy = await env.createAccount();
    const names: string[] = [];
    for (let i = 0; i < 5; i++) names.push((await upload(env, { key: judy.apiKey, bytes: pngBytes(500, 80 + i), json: true })).body.data.filename);
    const text = (await upload(env, { key: judy.apiKey, bytes: Buffer.from('just some text\n'), name: 'notes.txt', json: true })).body.data.filename as string;
    const judged = new Date();
    const verdicts: Partial<typeof filesTable.$inferInsert>[] = [
      {},
      { moderationVerdict: 'allow', moderatedAt: judged },
      { moderationVerdict: 'soft_flag', moderatedAt: judged },
      { moderationVerdict: 'hard_block', moderatedAt: judged, quarantined: true },
      { moderationVerdict: 'hard_block', moderatedAt: judged, quarantined: false, moderationReviewedAt: judged },
    ];
    for (const [i, set] of verdicts.entries()) {
      if (Object.keys(set).length > 0) await env.container.db.update(filesTable).set(set).where(eq(filesTable.filename, names[i]!));
    }

    const uploads = (await env.api.get('/api/user/dashboard?limit=100', { key: judy.apiKey })).body.data.uploads as Upload[];
    const stateOf = (filename: string) => uploads.find((u) => u.filename === filename)!.moderationState;
    expect(names.map(stateOf)).to.deep.equal(['pending', 'allowed', 'flagged', 'blocked', 'allowed']);
    expect(stateOf(text)).to.equal('allowed');
  });
});
