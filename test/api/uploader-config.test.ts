import { expect } from 'chai';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SESSION_COOKIE } from '../../shared/services/accounts/session.service.js';
import { createFolder } from '../helpers/folders.js';
import { pngBytes } from '../helpers/media.js';
import { runCommand } from '../helpers/run-script.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, getWithHost } from '../helpers/uploads.js';

type Account = { id: string; username: string; apiKey: string };

interface ShareXConfig {
  Version: string;
  Name: string;
  DestinationType: string;
  RequestMethod: string;
  RequestURL: string;
  Headers: Record<string, string>;
  Body: string;
  FileFormName: string;
  URL: string;
  DeletionURL: string;
  ErrorMessage: string;
}

/** ShareX's `{json:a.b}` syntax: each is replaced by that path's value in the JSON answer. */
function resolveShareXTemplate(template: string, answer: unknown): string {
  return template.replace(/\{json:([^}]+)\}/g, (_, jsonPath: string) =>
    String(jsonPath.split('.').reduce<any>((value, part) => value?.[part], answer)),
  );
}

describe('GET /api/user/uploader-config', () => {
  let env: TestEnv;
  let work: string;
  before(async () => {
    env = await createTestEnv();
    work = await mkdtemp(path.join(tmpdir(), 'hfs-uploader-config-'));
  });
  after(async () => {
    await env.close();
    await rm(work, { recursive: true, force: true });
  });

  const configOf = (account: { apiKey: string }, query: string) => env.api.get(`/api/user/uploader-config?${query}`, { key: account.apiKey });

  async function sharexConfig(account: Account, key = 'primary'): Promise<ShareXConfig> {
    const res = await configOf(account, `tool=sharex&key=${key}`);
    expect(res.status).to.equal(200);
    return JSON.parse(res.text) as ShareXConfig;
  }

  type ShareXResult = { ok: true; url: string; deletionUrl: string } | { ok: false; error: string };

  /** What ShareX does with a custom uploader: the multipart POST it describes, then its URL templates on the answer. */
  async function uploadAsShareX(config: ShareXConfig, bytes: Buffer): Promise<ShareXResult> {
    const form = new FormData();
    form.append(config.FileFormName, new Blob([new Uint8Array(bytes)]), 'screenshot.png');
    const res = await fetch(config.RequestURL, { method: config.RequestMethod, headers: config.Headers, body: form });
    const answer: unknown = await res.json();
    return res.ok
      ? { ok: true, url: resolveShareXTemplate(config.URL, answer), deletionUrl: resolveShareXTemplate(config.DeletionURL, answer) }
      : { ok: false, error: resolveShareXTemplate(config.ErrorMessage, answer) };
  }

  async function proWithFolderKey(folderName: string) {
    const account = await env.createAccount({ plan: 'pro' });
    const folderId = await createFolder(env, account, folderName);
    const issued = await env.api.post(`/api/user/folders/${folderId}/key`, { key: account.apiKey });
    expect(issued.status).to.equal(200);
    return { account, folderId, folderKey: issued.body.data as { id: string; apiKey: string } };
  }

  describe('tool=sharex', () => {
    it('is a downloadable .sxcu of the current format with the primary key, never cached', async () => {
      const alice = await env.createAccount();
      const res = await configOf(alice, 'tool=sharex');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="hosted-files-${alice.username}.sxcu"`);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(JSON.parse(res.text)).to.deep.equal({
        Version: '17.0.0',
        Name: `Hosted Files (${alice.username})`,
        DestinationType: 'ImageUploader, FileUploader',
        RequestMethod: 'POST',
        RequestURL: `${env.container.config.baseUrl}/api/upload?format=json`,
        Headers: { 'x-api-key': alice.apiKey },
        Body: 'MultipartFormData',
        FileFormName: 'file',
        URL: '{json:data.url}',
        DeletionURL: '{json:data.deletionUrl}',
        ErrorMessage: '{json:error}',
      });
    });

    it('uploads as ShareX would: its URL serves the bytes, its DeletionURL removes the file', async () => {
      const alice = await env.createAccount();
      const bytes = pngBytes(3000, 7);
      const result = await uploadAsShareX(await sharexConfig(alice), bytes);
      if (!result.ok) throw new Error(`upload failed: ${result.error}`);

      const [row] = await fileRowsOf(env, alice.id);
      expect(result.url).to.match(new RegExp(`/${row!.filename}$`));
      const served = await getWithHost(result.url);
      expect(served.status).to.equal(200);
      expect(served.body.equals(bytes)).to.equal(true);

      // ShareX opens the deletion link in the browser: a plain GET.
      const deleted = await getWithHost(result.deletionUrl);
      expect(deleted.status).to.equal(200);
      expect(await fileRowsOf(env, alice.id)).to.have.length(0);
      expect((await getWithHost(result.url)).status).to.equal(404);
    });

    it('shows the server\'s error through ErrorMessage once the key was regenerated', async () => {
      const alice = await env.createAccount();
      const config = await sharexConfig(alice);
      expect((await env.api.post('/api/user/regenerate-api-key', { key: alice.apiKey })).status).to.equal(200);
      expect(await uploadAsShareX(config, pngBytes())).to.deep.equal({ ok: false, error: 'Invalid API key' });
      expect(await fileRowsOf(env, alice.id)).to.have.length(0);
    });

    it('with key=<folderKeyId> carries that folder key, and uploads land in its folder', async () => {
      const { account, folderId, folderKey } = await proWithFolderKey('Screen Shots');
      const res = await configOf(account, `tool=sharex&key=${folderKey.id}`);
      expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="hosted-files-${account.username}-screen-shots.sxcu"`);
      const config = JSON.parse(res.text) as ShareXConfig;
      expect(config.Headers).to.deep.equal({ 'x-api-key': folderKey.apiKey });
      expect(config.Name).to.equal(`Hosted Files (${account.username} / Screen Shots)`);

      const bytes = pngBytes(1200, 3);
      const result = await uploadAsShareX(config, bytes);
      if (!result.ok) throw new Error(`upload failed: ${result.error}`);
      const [row] = await fileRowsOf(env, account.id);
      expect(row).to.include({ folderId });
      expect((await getWithHost(result.url)).body.equals(bytes)).to.equal(true);
    });
  });

  describe('tool=flameshot', () => {
    /** A bin dir with a fake `flameshot` that "captures" `shot`, and fake clipboard tools that record what they got. */
    async function fakeDesktop(name: string, shot: Buffer) {
      const bin = await mkdtemp(path.join(work, `${name}-`));
      await writeFile(path.join(bin, 'shot.png'), shot);
      const tools = {
        flameshot: `[ "$*" = "gui --raw" ] || exit 2\ncat '${bin}/shot.png'`,
        'wl-copy': `cat > '${bin}/clipboard'\necho wl-copy > '${bin}/clipboard-tool'`,
        xclip: `[ "$*" = "-selection clipboard" ] || exit 2\ncat > '${bin}/clipboard'\necho xclip > '${bin}/clipboard-tool'`,
      };
      for (const [tool, body] of Object.entries(tools)) {
        await writeFile(path.join(bin, tool), `#!/bin/sh\n${body}\n`);
        await chmod(path.join(bin, tool), 0o755);
      }
      const clipboard = async () => {
        const read = (file: string) => readFile(path.join(bin, file), 'utf8').catch(() => undefined);
        return { text: await read('clipboard'), tool: (await read('clipboard-tool'))?.trim() };
      };
      return { bin, clipboard };
    }

    const flameshotScript = async (account: Account) => (await configOf(account, 'tool=flameshot')).text;

    /** Runs the script with `sh` as a hotkey would, the fakes first on PATH; no Wayland unless `env` says so. */
    async function runScript(script: string, bin: string, env: Record<string, string> = {}) {
      await writeFile(path.join(bin, 'upload.sh'), script);
      return runCommand(`sh '${bin}/upload.sh'`, { PATH: `${bin}:${process.env.PATH}`, WAYLAND_DISPLAY: '', ...env });
    }

    it('is a POSIX sh script served as an attachment, never cached', async () => {
      const alice = await env.createAccount();
      const res = await configOf(alice, 'tool=flameshot');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/x-shellscript/);
      expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="hosted-files-${alice.username}-flameshot.sh"`);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(res.text).to.match(/^#!\/bin\/sh\n/);
      expect(res.text).to.include(`API_KEY='${alice.apiKey}'`);
      expect(res.text).to.include(`UPLOAD_URL='${env.container.config.baseUrl}/api/upload?format=json'`);
    });

    it('uploads the capture, prints its URL and puts it on the X11 clipboard with xclip', async () => {
      const alice = await env.createAccount();
      const shot = pngBytes(2000, 11);
      const desktop = await fakeDesktop('x11', shot);
      const run = await runScript(await flameshotScript(alice), desktop.bin);
      expect(run.code, run.stderr).to.equal(0);
      const url = run.stdout.trim();

      const [row] = await fileRowsOf(env, alice.id);
      expect(row!.originalName).to.equal('screenshot.png');
      expect(url).to.match(new RegExp(`/${row!.filename}$`));
      expect((await getWithHost(url)).body.equals(shot)).to.equal(true);
      expect(await desktop.clipboard()).to.deep.equal({ text: url, tool: 'xclip' });
    });

    it('uses wl-copy on Wayland', async () => {
      const alice = await env.createAccount();
      const desktop = await fakeDesktop('wayland', pngBytes(900, 5));
      const run = await runScript(await flameshotScript(alice), desktop.bin, { WAYLAND_DISPLAY: 'wayland-0' });
      expect(run.code, run.stderr).to.equal(0);
      const [row] = await fileRowsOf(env, alice.id);
      expect(await desktop.clipboard()).to.deep.equal({ text: run.stdout.trim(), tool: 'wl-copy' });
      expect(run.stdout.trim()).to.match(new RegExp(`/${row!.filename}$`));
    });

    it('exits non-zero with the server\'s error once the key was regenerated, copying nothing', async () => {
      const alice = await env.createAccount();
      const desktop = await fakeDesktop('refused', pngBytes());
      const script = await flameshotScript(alice);
      expect((await env.api.post('/api/user/regenerate-api-key', { key: alice.apiKey })).status).to.equal(200);
      const run = await runScript(script, desktop.bin);
      expect(run.code).to.not.equal(0);
      expect(run.stderr.trim()).to.equal('Upload failed: Invalid API key');
      expect(run.stdout).to.equal('');
      expect(await desktop.clipboard()).to.deep.equal({ text: undefined, tool: undefined });
      expect(await fileRowsOf(env, alice.id)).to.have.length(0);
    });

    it('uploads nothing when the capture is cancelled (no bytes)', async () => {
      const alice = await env.createAccount();
      const desktop = await fakeDesktop('cancelled', Buffer.alloc(0));
      const run = await runScript(await flameshotScript(alice), desktop.bin);
      expect(run.code).to.not.equal(0);
      expect(run.stderr.trim()).to.equal('No screenshot taken');
      expect(await fileRowsOf(env, alice.id)).to.have.length(0);
    });
  });

  describe('tool=curl', () => {
    it('is the one-liner as text/plain, and runs as printed', async () => {
      const alice = await env.createAccount();
      const res = await configOf(alice, 'tool=curl');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain/);
      expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="hosted-files-${alice.username}-curl.txt"`);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(res.text).to.equal(`curl -H "x-api-key: ${alice.apiKey}" -F file=@FILE '${env.container.config.baseUrl}/api/upload'\n`);

      const file = path.join(work, 'cat.png');
      await writeFile(file, pngBytes(700, 9));
      const run = await runCommand(`${res.text.trim().replace('@FILE', `@${file}`)} -sS`, {});
      expect(run.code, run.stderr).to.equal(0);
      const [row] = await fileRowsOf(env, alice.id);
      expect(run.stdout).to.match(new RegExp(`/${row!.filename}$`));
    });
  });

  describe('refusals', () => {
    it('answers 400 with the error body for an unknown or missing tool', async () => {
      const alice = await env.createAccount();
      for (const query of ['tool=sharexx', '', 'tool=sharex&tool=curl']) {
        const res = await configOf(alice, query);
        expect(res.status, query).to.equal(400);
        expect(res.body.success).to.equal(false);
        expect(res.body.error).to.match(/tool must be sharex, flameshot or curl/);
      }
    });

    it('answers 404 for another account\'s folder key or an unknown key, and 403 for a free account', async () => {
      const { folderKey } = await proWithFolderKey('theirs');
      const { account: other } = await proWithFolderKey('mine');
      for (const key of [folderKey.id, '00000000-0000-4000-8000-000000000000', 'not-a-key']) {
        const res = await configOf(other, `tool=sharex&key=${key}`);
        expect(res.status, key).to.equal(404);
        expect(res.body).to.deep.equal({ success: false, error: 'Folder key not found' });
        expect(res.text).to.not.include(folderKey.apiKey);
      }
      const free = await env.createAccount();
      const res = await configOf(free, `tool=sharex&key=${folderKey.id}`);
      expect(res.status).to.equal(403);
      expect(res.body.success).to.equal(false);
    });

    it('answers 401 without credentials, for an unknown key and for a folder key', async () => {
      const { folderKey } = await proWithFolderKey('keyed');
      expect((await env.api.get('/api/user/uploader-config?tool=sharex')).status).to.equal(401);
      expect((await env.api.get('/api/user/uploader-config?tool=sharex', { key: `hfs_${'0'.repeat(32)}` })).status).to.equal(401);
      const res = await env.api.get('/api/user/uploader-config?tool=curl', { key: folderKey.apiKey });
      expect(res.status).to.equal(401);
      expect(res.body.success).to.equal(false);
    });
  });

  describe('under the site session', () => {
    it('downloads the configs the dashboard settings link, with the account key inside', async () => {
      const alice = await env.createAccount();
      const { token } = await env.container.services.sessions.create(alice.id, null);
      const cookie = `${SESSION_COOKIE}=${token}`;
      for (const tool of ['sharex', 'flameshot', 'curl']) {
        const res = await env.api.get(`/api/user/uploader-config?tool=${tool}`, { headers: { cookie } });
        expect(res.status, tool).to.equal(200);
        expect(res.text, tool).to.include(alice.apiKey);
      }
    });
  });
});
