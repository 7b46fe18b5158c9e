import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { accounts, files } from '../../shared/db/schema.js';
import { pngBytes } from '../helpers/media.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, getWithHost, storageUsedBy, upload } from '../helpers/uploads.js';
import { eventually } from '../helpers/eventually.js';
import { createFolder as createFolderVia } from '../helpers/folders.js';

type Account = { id: string; username: string; apiKey: string };


describe('files of an account', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ workers: true, env: { PLAN_FREE_STORAGE_LIMIT: '2000000', PLAN_FREE_DAILY_LIMIT: '1000' } });
  });
  after(() => env.close());

  async function uploadOne(account: Account, bytes = pngBytes(2000), name = 'photo.png') {
    const res = await upload(env, { key: account.apiKey, bytes, name, json: true });
    expect(res.status).to.equal(200);
    return res.body.data as { url: string; filename: string };
  }

  async function rowOf(account: Account, filename: string) {
    return (await fileRowsOf(env, account.id)).find((r) => r.filename === filename);
  }

  const createFolder = (account: Account, name: string) => createFolderVia(env, account, name);

  describe('DELETE /api/user/images/:filename', () => {
    it('removes the file: row gone, URL 404, storage given back, object deleted by the job', async () => {
      const alice = await env.createAccount();
      const file = await uploadOne(alice);
      const row = (await rowOf(alice, file.filename))!;
      const res = await env.api.delete(`/api/user/images/${file.filename}`, { key: alice.apiKey });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ success: true, message: 'File deleted' });
      expect(await rowOf(alice, file.filename)).to.equal(undefined);
      expect((await getWithHost(file.url)).status).to.equal(404);
      expect(await storageUsedBy(env, alice.id)).to.equal(0);
      await eventually(async () => (await env.container.storage.head(row.objectKey)) === null);
    });

    it('answers 404 for an unknown file', async () => {
      const alice = await env.createAccount();
      const res = await env.api.delete('/api/user/images/nothing.png', { key: alice.apiKey });
      expect(res.status).to.equal(404);
      expect(res.body.success).to.equal(false);
    });
  });

  describe('PUT /api/user/images/:filename/rename', () => {
    it('renames: spaces become hyphens, the URL changes, the old URL is 404, bytes are not copied', async () => {
      const alice = await env.createAccount();
      const file = await uploadOne(alice);
      const before = (await rowOf(alice, file.filename))!;
      const res = await env.api.put(`/api/user/images/${file.filename}/rename`, { key: alice.apiKey, json: { newFilename: 'my summer photo.png' } });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ success: true, oldFilename: file.filename, newFilename: 'my-summer-photo.png' });
      expect(res.body.message).to.be.a('string');
      expect(res.body.newUrl).to.match(/\/my-summer-photo\.png$/);
      const after = (await rowOf(alice, 'my-summer-photo.png'))!;
      expect(after.objectKey).to.equal(before.objectKey);
      expect(after.mimeType).to.equal('image/png');
      expect((await getWithHost(res.body.newUrl)).status).to.equal(200);
      expect((await getWithHost(file.url)).status).to.equal(404);
    });

    it('updates the stored content type when the extension changes', async () => {
      const alice = await env.createAccount();
      const file = await uploadOne(alice);
      const res = await env.api.put(`/api/user/images/${file.filename}/rename`, { key: alice.apiKey, json: { newFilename: 'notes.txt' } });
      expect(res.status).to.equal(200);
      expect((await rowOf(alice, 'notes.txt'))!.mimeType).to.equal('text/plain');
    });

    it('refuses names without an extension, with separators, control or invisible characters, dot-only names (400)', async () => {
      const alice = await env.createAccount();
      const file = await uploadOne(alice);
      const disguised = ['x\u202egnp.exe', 'photo\u200b.png', 'a\u2066b.png'];
      for (const newFilename of ['noextension', 'a/b.png', 'a\\b.png', 'bad\u0007.png', '..png', '.png', '...', '', 42, undefined, ...disguised]) {
        const res = await env.api.put(`/api/user/images/${file.filename}/rename`, { key: alice.apiKey, json: { newFilename } });
        expect(res.status, JSON.stringify(newFilename)).to.equal(400);
        expect(res.body.success).to.equal(false);
      }
      expect(await rowOf(alice, file.filename)).not.to.equal(undefined);
    });

    it('refuses a newline, a tab or any other control character (400): the file keeps its name, the new name is 404', async () => {
      const alice = await env.createAccount();
      const file = await uploadOne(alice);
      const urlOf = (name: string) => file.url.replace(file.filename, encodeURIComponent(name));
      for (const newFilename of ['two\nlines.png', 'tab\tbed.png', 'trailing.png\n', '\tleading.png', 'del\u007f.png', 'c1\u0085.png']) {
        const res = await env.api.put(`/api/user/images/${file.filename}/rename`, { key: alice.apiKey, json: { newFilename } });
        expect(res.status, JSON.stringify(newFilename)).to.equal(400);
        expect(res.body.success).to.equal(false);
        // Neither the name as sent, nor a hyphenated or trimmed version of it, came to be.
        for (const name of [newFilename, newFilename.replace(/\s+/g, '-'), newFilename.trim()]) {
          expect(await rowOf(alice, name), JSON.stringify(name)).to.equal(undefined);
          expect((await getWithHost(urlOf(name))).status, JSON.stringify(name)).to.equal(404);
        }
      }
      expect(await rowOf(alice, file.filename)).not.to.equal(undefined);
      expect((await getWithHost(file.url)).status).to.equal(200);
    });

    it('refuses a name the account already uses (409) and leaves both files', async () => {
      const alice = await env.createAccount();
      const a = await uploadOne(alice);
      const b = await uploadOne(alice, pngBytes(2000, 4));
      const res = await env.api.put(`/api/user/images/${a.filename}/rename`, { key: alice.apiKey, json: { newFilename: b.filename } });
      expect(res.status).to.equal(409);
      expect(res.body).to.deep.equal({ success: false, error: `You already have a file named ${b.filename}` });
      expect(await fileRowsOf(env, alice.id)).to.have.length(2);
    });

    it('lets two accounts use the same name', async () => {
      const alice = await env.createAccount();
      const bob = await env.createAccount();
      const a = await uploadOne(alice);
      const b = await uploadOne(bob);
      expect((await env.api.put(`/api/user/images/${a.filename}/rename`, { key: alice.apiKey, json: { newFilename: 'same.png' } })).status).to.equal(200);
      expect((await env.api.put(`/api/user/images/${b.filename}/rename`, { key: bob.apiKey, json: { newFilename: 'same.png' } })).status).to.equal(200);
    });
  });

  describe('PATCH /api/user/images/:filename/replace', () => {
    it('swaps the content under the same name, URL, folder and privacy; the old object goes', async () => {
      const alice = await env.createAccount();
      const folderId = await createFolder(alice, 'kept');
      const file = await uploadOne(alice, pngBytes(2000, 1), 'first.png');
      await env.api.patch(`/api/user/images/${file.filename}/move`, { key: alice.apiKey, json: { folderId } });
      const before = (await rowOf(alice, file.filename))!;
      const firstServe = await getWithHost(file.url);

      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(Buffer.from('now plain text\n'))]), 'second.txt');
      const res = await env.api.patch(`/api/user/images/${file.filename}/replace`, { key: alice.apiKey, body: form });
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      expect(res.body.data).to.include({ filename: file.filename, url: file.url, mimeType: 'text/plain', sizeBytes: 15, oldSizeBytes: 2000 });
      expect(new Date(res.body.data.updatedAt).getTime()).to.be.closeTo(Date.now(), 60_000);

      const after = (await rowOf(alice, file.filename))!;
      expect(after).to.include({ folderId, isPrivate: before.isPrivate, originalName: 'second.txt', filename: file.filename });
      expect(after.objectKey).not.to.equal(before.objectKey);
      expect(await storageUsedBy(env, alice.id)).to.equal(15);
      // The extension is not adjusted, the ETag changes with the content.
      const served = await getWithHost(file.url);
      expect(served.body.toString()).to.equal('now plain text\n');
      expect(served.headers.etag).not.to.equal(firstServe.headers.etag);
      const job = (await env.container.jobs.queue('objects').getDelayed()).find((j) => j.data.key === before.objectKey);
      expect(job, 'old object deletion is queued').not.to.equal(undefined);
    });

    it('answers 413 when the size increase would pass the storage limit, and changes nothing', async () => {
      const alice = await env.createAccount();
      const file = await uploadOne(alice, pngBytes(2000));
      // The rest of the account's storage is taken by other files.
      await env.container.db.update(accounts).set({ storageUsed: 1_999_000 }).where(eq(accounts.id, alice.id));
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(pngBytes(5000, 2))]), 'bigger.png');
      const res = await env.api.patch(`/api/user/images/${file.filename}/replace`, { key: alice.apiKey, body: form });
      expect(res.status).to.equal(413);
      expect(res.body).to.deep.equal({ success: false, error: 'The larger file would pass the storage limit' });
      const row = (await rowOf(alice, file.filename))!;
      expect(row.size).to.equal(2000);
      expect(await storageUsedBy(env, alice.id)).to.equal(1_999_000);
      expect((await getWithHost(file.url)).body.length).to.equal(2000);
      // A smaller body always fits.
      const smaller = new FormData();
      smaller.append('file', new Blob([new Uint8Array(pngBytes(1500, 3))]), 'smaller.png');
      expect((await env.api.patch(`/api/user/images/${file.filename}/replace`, { key: alice.apiKey, body: smaller })).status).to.equal(200);
      expect(await storageUsedBy(env, alice.id)).to.equal(1_998_500);
    });

    it('answers 404 for an unknown file and 400 without a file', async () => {
      const alice = await env.createAccount();
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(pngBytes())]), 'x.png');
      expect((await env.api.patch('/api/user/images/none.png/replace', { key: alice.apiKey, body: form })).status).to.equal(404);
      const file = await uploadOne(alice);
      const empty = new FormData();
      empty.append('note', 'no file');
      expect((await env.api.patch(`/api/user/images/${file.filename}/replace`, { key: alice.apiKey, body: empty })).status).to.equal(400);
    });

    it('refuses a banned account (403) before reading the body, and changes nothing', async () => {
      const alice = await env.createAccount();
      const file = await uploadOne(alice, pngBytes(2000, 4));
      await env.container.services.accounts.ban(alice.username, 'spam');
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(pngBytes(1000, 5))]), 'other.png');
      const res = await env.api.patch(`/api/user/images/${file.filename}/replace`, { key: alice.apiKey, body: form });
      expect(res.status).to.equal(403);
      expect(res.body.success).to.equal(false);
      expect((await rowOf(alice, file.filename))!.size).to.equal(2000);
      expect((await getWithHost(file.url)).body.length).to.equal(2000);
    });

    it('keeps only the base name the client sent, in UTF-8', async () => {
      const alice = await env.createAccount();
      const file = await uploadOne(alice, pngBytes(2000, 6), 'été.png');
      expect((await rowOf(alice, file.filename))!.originalName).to.equal('été.png');
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(pngBytes(1000, 7))]), '../../etc/überall.png');
      const res = await env.api.patch(`/api/user/images/${file.filename}/replace`, { key: alice.apiKey, body: form });
      expect(res.status).to.equal(200);
      expect((await rowOf(alice, file.filename))!.originalName).to.equal('überall.png');
    });

    it('answers 400 to a malformed or truncated multipart body, and changes nothing', async () => {
      const alice = await env.createAccount();
      const file = await uploadOne(alice, pngBytes(2000, 8));
      const truncated = '--b0undary\r\nContent-Disposition: form-data; name="file"; filename="x.png"\r\nContent-Type: image/png\r\n\r\nabc';
      for (const [contentType, body] of [
        ['multipart/form-data', 'no boundary at all'],
        ['multipart/form-data; boundary=b0undary', truncated],
        ['multipart/form-data; boundary=b0undary', 'garbage that is not multipart'],
      ] as const) {
        const res = await env.api.patch(`/api/user/images/${file.filename}/replace`, {
          key: alice.apiKey,
          body,
          headers: { 'content-type': contentType },
        });
        expect(res.status, body).to.equal(400);
        expect(res.body.success).to.equal(false);
      }
      expect((await rowOf(alice, file.filename))!.size).to.equal(2000);
      expect(await storageUsedBy(env, alice.id)).to.equal(2000);
    });

    it('never lets a reader see a partial file while it is replaced', async () => {
      const alice = await env.createAccount();
      const oldBytes = pngBytes(400_000, 1);
      const newBytes = pngBytes(300_000, 2);
      const file = await uploadOne(alice, oldBytes);
      let replacing = true;
      const reads: Buffer[] = [];
      const reader = (async () => {
        while (replacing) reads.push((await getWithHost(file.url)).body);
      })();
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(newBytes)]), 'new.png');
      const res = await env.api.patch(`/api/user/images/${file.filename}/replace`, { key: alice.apiKey, body: form });
      expect(res.status).to.equal(200);
      for (let i = 0; i < 5; i++) reads.push((await getWithHost(file.url)).body);
      replacing = false;
      await reader;
      expect(reads.length).to.be.greaterThan(5);
      for (const body of reads) expect(body.equals(oldBytes) || body.equals(newBytes), `a read of ${body.length} bytes`).to.equal(true);
      expect(reads.at(-1)!.equals(newBytes)).to.equal(true);
    });
  });

  describe('a NUL byte in a filename', () => {
    it('is a 400 on every route that names a file, never a 500', async () => {
      const alice = await env.createAccount();
      const name = 'a%00b.png';
      const calls = [
        env.api.delete(`/api/user/images/${name}`, { key: alice.apiKey }),
        env.api.put(`/api/user/images/${name}/rename`, { key: alice.apiKey, json: { newFilename: 'c.png' } }),
        env.api.patch(`/api/user/images/${name}/move`, { key: alice.apiKey, json: { folderId: null } }),
        env.api.patch(`/api/user/images/${name}/privacy`, { key: alice.apiKey, json: { isPrivate: true } }),
        env.api.patch('/api/user/images/move', { key: alice.apiKey, json: { filenames: ['a\u0000b.png'], folderId: null } }),
        env.api.get(`/api/delete/${name}?apiKey=${alice.apiKey}`),
      ];
      for (const res of await Promise.all(calls)) {
        expect(res.status).to.equal(400);
        expect(res.body.success).to.equal(false);
      }
    });
  });

  describe('PATCH /api/user/images/:filename/move', () => {
    it('moves into a folder and back to the root (folderId null or omitted)', async () => {
      const alice = await env.createAccount();
      const folderId = await createFolder(alice, 'trips');
      const file = await uploadOne(alice);
      const res = await env.api.patch(`/api/user/images/${file.filename}/move`, { key: alice.apiKey, json: { folderId } });
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      expect(res.body.message).to.be.a('string');
      expect((await rowOf(alice, file.filename))!.folderId).to.equal(folderId);
      expect((await env.api.patch(`/api/user/images/${file.filename}/move`, { key: alice.apiKey, json: { folderId: null } })).status).to.equal(200);
      expect((await rowOf(alice, file.filename))!.folderId).to.equal(null);
      await env.api.patch(`/api/user/images/${file.filename}/move`, { key: alice.apiKey, json: { folderId } });
      expect((await env.api.patch(`/api/user/images/${file.filename}/move`, { key: alice.apiKey, json: {} })).status).to.equal(200);
      expect((await rowOf(alice, file.filename))!.folderId).to.equal(null);
    });

    it('answers 404 for an unknown file or folder, 400 for a malformed folder id', async () => {
      const alice = await env.createAccount();
      const file = await uploadOne(alice);
      const folderId = await createFolder(alice, 'x');
      expect((await env.api.patch('/api/user/images/nope.png/move', { key: alice.apiKey, json: { folderId } })).status).to.equal(404);
      const unknown = '00000000-0000-4000-8000-000000000000';
      expect((await env.api.patch(`/api/user/images/${file.filename}/move`, { key: alice.apiKey, json: { folderId: unknown } })).status).to.equal(404);
      expect((await env.api.patch(`/api/user/images/${file.filename}/move`, { key: alice.apiKey, json: { folderId: 'abc' } })).status).to.equal(400);
    });
  });

  describe('PATCH /api/user/images/move (batch)', () => {
    it('moves own files and lists missing and foreign ones in errors, still 200', async () => {
      const alice = await env.createAccount();
      const bob = await env.createAccount();
      const folderId = await createFolder(alice, 'batch');
      const a = await uploadOne(alice);
      const b = await uploadOne(alice, pngBytes(2000, 5));
      const foreign = await uploadOne(bob);
      const res = await env.api.patch('/api/user/images/move', {
        key: alice.apiKey,
        json: { filenames: [a.filename, 'missing.png', b.filename, foreign.filename], folderId },
      });
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      expect(res.body.moved).to.have.members([a.filename, b.filename]);
      expect(res.body.errors).to.have.deep.members([
        // The spec's text, to the letter.
        { filename: 'missing.png', error: 'file not found or not owned by user' },
        { filename: foreign.filename, error: 'file not found or not owned by user' },
      ]);
      expect(res.body.message).to.be.a('string');
      expect((await rowOf(alice, a.filename))!.folderId).to.equal(folderId);
      const bobs = await fileRowsOf(env, bob.id);
      expect(bobs[0]!.folderId).to.equal(null);
    });

    it('moves to the root with folderId null', async () => {
      const alice = await env.createAccount();
      const folderId = await createFolder(alice, 'f');
      const a = await uploadOne(alice);
      await env.container.db.update(files).set({ folderId }).where(eq(files.accountId, alice.id));
      const res = await env.api.patch('/api/user/images/move', { key: alice.apiKey, json: { filenames: [a.filename], folderId: null } });
      expect(res.body.moved).to.deep.equal([a.filename]);
      expect((await rowOf(alice, a.filename))!.folderId).to.equal(null);
    });

    it('refuses an empty or missing filenames array (400) and another account\'s folder (404)', async () => {
      const alice = await env.createAccount();
      const bob = await env.createAccount();
      const a = await uploadOne(alice);
      expect((await env.api.patch('/api/user/images/move', { key: alice.apiKey, json: { filenames: [] } })).status).to.equal(400);
      expect((await env.api.patch('/api/user/images/move', { key: alice.apiKey, json: { folderId: null } })).status).to.equal(400);
      const bobsFolder = await createFolder(bob, 'mine');
      const res = await env.api.patch('/api/user/images/move', { key: alice.apiKey, json: { filenames: [a.filename], folderId: bobsFolder } });
      expect(res.status).to.equal(404);
      expect((await rowOf(alice, a.filename))!.folderId).to.equal(null);
    });
  });
});
