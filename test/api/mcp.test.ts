import { type Client, InsufficientScopeError, SdkHttpError } from '@modelcontextprotocol/client';
import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { request } from 'node:http';
import sharp from 'sharp';
import { files } from '../../shared/db/schema.js';
import { MCP_REVISIONS as REVISIONS, mcpClient } from '../helpers/mcp-client.js';
import { pngBytes } from '../helpers/media.js';
import { ALL_SCOPES, connectAssistant, SPEC_TOOL_NAMES } from '../helpers/oauth.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, storedObjects } from '../helpers/uploads.js';

const UPLOAD_MAX_BYTES = 3_000_000;
type Structured = Record<string, any>;

/** A large, detailed PNG: what view_file must shrink. */
async function bigPng(): Promise<Buffer> {
  const width = 3000;
  const height = 2000;
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 7919) % 251;
  return sharp(raw, { raw: { width, height, channels: 3 } }).png({ compressionLevel: 1 }).toBuffer();
}

for (const revision of REVISIONS) {
  describe(`MCP server with a client of revision ${revision}`, function () {
    this.timeout(60_000);
    let env: TestEnv;
    let mcpUrl: string;
    let user: { id: string; username: string; apiKey: string };
    let client: Client;
    let clientId: string;

    before(async () => {
      env = await createTestEnv({ workers: true, env: { CAPTCHA_MAX_NUMBER: '2000', MCP_UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES) } });
      mcpUrl = `${env.container.config.baseUrl}/mcp`;
      user = await env.createAccount({ plan: 'pro' });
      const connected = await connectAssistant(env, { user });
      clientId = connected.client.client.client_id;
      client = await mcpClient(mcpUrl, connected.tokens.access_token, revision);
    });
    after(async () => {
      await client?.close();
      await env.close();
    });

    /** Calls a tool; its structured result, which must equal the JSON of its text. */
    async function call(name: string, args: Record<string, unknown> = {}): Promise<Structured> {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, JSON.stringify(result.content)).to.not.equal(true);
      const text = (result.content as { type: string; text?: string }[]).find((c) => c.type === 'text')!.text!;
      expect(JSON.parse(text)).to.deep.equal(result.structuredContent);
      return result.structuredContent as Structured;
    }

    async function refusal(name: string, args: Record<string, unknown>): Promise<string> {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError).to.equal(true);
      return (result.content as { text: string }[])[0]!.text;
    }

    const uploadPng = (filename: string, bytes = pngBytes(300, filename.length)) =>
      call('upload_file', { filename, contentBase64: bytes.toString('base64') });

    it('speaks the revision asked for and lists all fifteen tools, each with schemas and annotations', async () => {
      expect(client.getNegotiatedProtocolVersion()).to.equal(revision);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).to.have.members(SPEC_TOOL_NAMES);
      for (const tool of tools) {
        expect(tool.inputSchema.type, tool.name).to.equal('object');
        expect(tool.outputSchema?.type, tool.name).to.equal('object');
        expect(tool.annotations, tool.name).to.include.keys('readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint');
      }
      const byName = new Map(tools.map((t) => [t.name, t]));
      expect(byName.get('delete_files')!.annotations!.destructiveHint).to.equal(true);
      expect(byName.get('list_files')!.annotations!.readOnlyHint).to.equal(true);
      expect(byName.get('upload_from_url')!.annotations!.openWorldHint).to.equal(true);
    });

    it('get_account: plan, limits, usage and what is left, never a key', async () => {
      await uploadPng('counted.png');
      const result = await client.callTool({ name: 'get_account', arguments: {} });
      const account = result.structuredContent as Structured;
      expect(account.username).to.equal(user.username);
      expect(account.plan).to.equal('pro');
      expect(account.usage.uploadsToday).to.be.at.least(1);
      expect(account.remaining.uploadsToday).to.equal(account.limits.dailyLimit - account.usage.uploadsToday);
      expect(JSON.stringify(result)).to.not.include(user.apiKey);
    });

    it('upload_file stores the bytes as an upload of source "mcp", and get_file describes it', async () => {
      const bytes = pngBytes(500, 7);
      const uploaded = await uploadPng('diagram.png', bytes);
      expect(uploaded).to.include({ originalFilename: 'diagram.png', mimeType: 'image/png', sizeBytes: bytes.length });
      const [row] = await env.container.db.select().from(files).where(eq(files.filename, uploaded.filename));
      expect(row).to.include({ accountId: user.id, source: 'mcp', size: bytes.length });
      expect(await storedObjects(env)).to.include(row!.objectKey);
      const stored = await env.container.storage.get(row!.objectKey);
      expect(Buffer.concat(await stored!.body.toArray()).equals(bytes)).to.equal(true);

      const file = await call('get_file', { filename: uploaded.filename });
      expect(file).to.include({ filename: uploaded.filename, originalName: 'diagram.png', url: uploaded.url, kind: 'image', size: bytes.length, isPrivate: false });
    });

    it('upload_file refuses content over MCP_UPLOAD_MAX_BYTES and stores nothing', async () => {
      const before = { rows: (await fileRowsOf(env, user.id)).length, objects: (await storedObjects(env)).length };
      const message = await refusal('upload_file', { filename: 'huge.bin', contentBase64: Buffer.alloc(UPLOAD_MAX_BYTES + 1).toString('base64') });
      expect(message).to.match(/at most/);
      expect((await fileRowsOf(env, user.id)).length).to.equal(before.rows);
      expect((await storedObjects(env)).length).to.equal(before.objects);
    });

    it('list_files pages newest first with a cursor and filters by kind and name', async () => {
      const names = [];
      for (const name of ['page-a.png', 'page-b.png', 'page-c.png']) names.push((await uploadPng(name)).filename);
      const first = await call('list_files', { limit: 2, search: 'page-' });
      expect(first.files.map((f: Structured) => f.filename)).to.deep.equal([names[2], names[1]]);
      expect(first.nextCursor).to.be.a('string');
      const second = await call('list_files', { limit: 2, search: 'page-', cursor: first.nextCursor });
      expect(second.files.map((f: Structured) => f.filename)).to.deep.equal([names[0]]);
      expect(second.nextCursor).to.equal(null);
      expect((await call('list_files', { kind: 'video' })).files).to.deep.equal([]);
      expect((await call('list_files', { kind: 'image', search: 'page-b' })).files).to.have.length(1);
      expect(await refusal('list_files', { cursor: 'not-a-cursor' })).to.match(/cursor/);
    });

    it('view_file shows an image downscaled within 1568 px and a few hundred KB', async () => {
      const uploaded = await call('upload_file', { filename: 'large.png', contentBase64: (await bigPng()).toString('base64') });
      const result = await client.callTool({ name: 'view_file', arguments: { filename: uploaded.filename } });
      expect(result.isError, JSON.stringify(result.content)).to.not.equal(true);
      const image = (result.content as { type: string; data?: string; mimeType?: string }[]).find((c) => c.type === 'image')!;
      const data = Buffer.from(image.data!, 'base64');
      expect(data.length).to.be.at.most(400 * 1024);
      const meta = await sharp(data).metadata();
      expect(meta.format).to.equal(image.mimeType!.split('/')[1]);
      expect(Math.max(meta.width!, meta.height!)).to.be.at.most(1568);
      expect((result.structuredContent as Structured).shown).to.equal(true);
    });

    it('upload_from_url refuses a private address and stores nothing', async () => {
      const before = (await fileRowsOf(env, user.id)).length;
      const message = await refusal('upload_from_url', { url: 'http://127.0.0.1:9/cat.png' });
      expect(message).to.match(/non-public|private|not allowed/i);
      expect((await fileRowsOf(env, user.id)).length).to.equal(before);
    });

    it('rename_files, move_files, create/list/share/delete folders and delete_files act on the library', async () => {
      const a = (await uploadPng('one.png')).filename as string;
      const b = (await uploadPng('two.png')).filename as string;
      const renamed = await call('rename_files', { renames: [{ filename: a, newFilename: `renamed-${revision}.png` }, { filename: 'missing.png', newFilename: 'x.png' }] });
      expect(renamed.results[0]).to.include({ filename: a, ok: true, newFilename: `renamed-${revision}.png` });
      expect(renamed.results[1]).to.include({ filename: 'missing.png', ok: false });
      const newName = `renamed-${revision}.png`;

      const folder = await call('create_folder', { name: `Assistant ${revision}` });
      const moved = await call('move_files', { filenames: [newName, b, 'missing.png'], folderId: folder.id });
      expect(moved.results.filter((r: Structured) => r.ok).map((r: Structured) => r.filename)).to.have.members([newName, b]);
      const listed = (await call('list_folders')).folders.find((f: Structured) => f.id === folder.id);
      expect(listed).to.include({ fileCount: 2, shared: false });
      expect((await call('list_files', { folderId: folder.id })).files).to.have.length(2);

      const shared = await call('share_folder', { folderId: folder.id });
      expect(shared.url).to.match(/\/album\//);
      expect((await fetch(shared.url)).status).to.equal(200);
      await call('share_folder', { folderId: folder.id, shared: false });
      expect((await fetch(shared.url)).status).to.equal(404);

      const deleted = await call('delete_files', { filenames: [newName, 'missing.png'] });
      expect(deleted.results).to.deep.include({ filename: newName, ok: true });
      expect((await fileRowsOf(env, user.id)).map((r) => r.filename)).to.not.include(newName);
      await call('delete_folder', { folderId: folder.id });
      expect((await call('list_folders')).folders.map((f: Structured) => f.id)).to.not.include(folder.id);
      expect((await fileRowsOf(env, user.id)).find((r) => r.filename === b)!.folderId).to.equal(null);
    });

    it("request_file_from_user and check_file_handoff: the wait ends with the file someone drops on the page", async () => {
      const link = await call('request_file_from_user', { note: 'The signed contract' });
      expect(link.status).to.equal('pending');
      let listening!: () => void;
      const waitStarted = new Promise<void>((resolve) => (listening = resolve));
      const waiting = client.callTool({ name: 'check_file_handoff', arguments: { id: link.id, waitSeconds: 20 } }, { onprogress: () => listening() });
      // The tool reports progress as its wait begins: the drop comes while the call is in flight.
      await waitStarted;
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(pngBytes(400, 3))]), 'contract.png');
      const dropped = await fetch(link.url, { method: 'POST', body: form, headers: { accept: 'application/json' } });
      expect(dropped.status).to.equal(200);
      const result = await waiting;
      const handed = result.structuredContent as Structured;
      expect(handed.status).to.equal('received');
      expect(handed.file.originalName).to.equal('contract.png');
      expect((await fileRowsOf(env, user.id)).map((r) => r.filename)).to.include(handed.file.filename);
    });

    it('hides and refuses tools outside the token: a read-only token lists four tools, and a call to another is 403 insufficient_scope', async () => {
      const reader = await connectAssistant(env, { user, scopes: ['files:read'] });
      const readOnly = await mcpClient(mcpUrl, reader.tokens.access_token, revision);
      try {
        const { tools } = await readOnly.listTools();
        expect(tools.map((t) => t.name)).to.have.members(['list_files', 'get_file', 'view_file', 'check_file_handoff']);
        const refused = await readOnly.callTool({ name: 'delete_files', arguments: { filenames: ['x.png'] } }).catch((err: unknown) => err);
        expect(refused).to.be.instanceOf(InsufficientScopeError);
        expect((refused as InsufficientScopeError).requiredScope).to.equal('files:delete');
      } finally {
        await readOnly.close();
      }
    });

    it('stops a disconnected assistant on its very next call', async () => {
      const other = await connectAssistant(env, { user, scopes: ALL_SCOPES, name: 'Doomed' });
      const doomed = await mcpClient(mcpUrl, other.tokens.access_token, revision);
      try {
        await doomed.callTool({ name: 'get_account', arguments: {} });
        const removed = await env.api.delete(`/api/user/connections/${encodeURIComponent(other.client.client.client_id)}`, { key: user.apiKey });
        expect(removed.status).to.equal(200);
        const after = await doomed.callTool({ name: 'get_account', arguments: {} }).catch((err: unknown) => err);
        expect(after).to.be.instanceOf(SdkHttpError);
        expect((after as SdkHttpError).status).to.equal(401);
        // The first assistant is untouched.
        expect((await call('get_account')).username).to.equal(user.username);
        expect(clientId).to.not.equal(other.client.client.client_id);
      } finally {
        await doomed.close();
      }
    });
  });
}

describe('MCP endpoint guards', function () {
  this.timeout(30_000);
  let env: TestEnv;
  let mcpUrl: string;
  let token: string;
  before(async () => {
    env = await createTestEnv({ env: { CAPTCHA_MAX_NUMBER: '2000', MCP_UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES) } });
    mcpUrl = `${env.container.config.baseUrl}/mcp`;
    token = (await connectAssistant(env)).tokens.access_token;
  });
  after(() => env.close());

  const post = (headers: Record<string, string>, body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })) =>
    fetch(mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });

  it('refuses a browser Origin that is not the service with 403, and a Host that is not the service (DNS rebinding)', async () => {
    expect((await post({})).status).to.equal(200);
    expect((await post({ origin: env.container.config.baseUrl })).status).to.equal(200);
    expect((await post({ origin: 'https://evil.example' })).status).to.equal(403);
    // fetch cannot set Host: a raw request does, as a rebinding page's browser would.
    const url = new URL(mcpUrl);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: url.port, path: '/mcp', method: 'POST', headers: { host: `evil.example:${url.port}`, authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end('{}');
    });
    // Hosts the service does not know are answered 404 before any route, /mcp included.
    expect(status).to.equal(404);
  });

  it('refuses a body past the bound that upload_file sets (413), before any tool runs', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'upload_file', arguments: { filename: 'x.bin', contentBase64: 'A'.repeat(UPLOAD_MAX_BYTES * 2) } } });
    const res = await post({}, big);
    expect(res.status).to.equal(413);
    expect(await env.container.db.select().from(files)).to.deep.equal([]);
  });
});
