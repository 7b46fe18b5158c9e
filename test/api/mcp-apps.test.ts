import type { Client } from '@modelcontextprotocol/client';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import { APPS_HOST, photoWithThumbnails } from '../helpers/mcp-apps.js';
import { mcpClient } from '../helpers/mcp-client.js';
import { connectAssistant } from '../helpers/oauth.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';

const APPS = {
  'ui://hosted-files/gallery.html': ['list_files'],
  'ui://hosted-files/file-card.html': ['get_file', 'view_file'],
  'ui://hosted-files/drop-zone.html': ['request_file_from_user'],
};

type Structured = Record<string, any>;

describe('MCP Apps: the ui:// resources and the tools that show them', function () {
  this.timeout(60_000);
  let env: TestEnv;
  let user: { id: string; username: string; apiKey: string };
  let host: Client;
  let plain: Client;
  let site: string;

  before(async () => {
    env = await createTestEnv({ env: { CAPTCHA_MAX_NUMBER: '2000' } });
    site = new URL(env.container.config.siteUrl).origin;
    user = await env.createAccount();
    const { tokens } = await connectAssistant(env, { user });
    const mcpUrl = `${env.container.config.baseUrl}/mcp`;
    host = await mcpClient(mcpUrl, tokens.access_token, '2026-07-28', APPS_HOST);
    plain = await mcpClient(mcpUrl, tokens.access_token, '2026-07-28');
  });
  after(async () => {
    await host?.close();
    await plain?.close();
    await env.close();
  });

  const csp = () => ({ connectDomains: [site], resourceDomains: [site] });

  it('lists the three apps as ui:// resources of the extension’s MIME type, each with its CSP: our own site, nothing else', async () => {
    const { resources } = await host.listResources();
    const apps = resources.filter((r) => r.uri.startsWith('ui://'));
    expect(apps.map((r) => r.uri)).to.have.members(Object.keys(APPS));
    for (const app of apps) {
      expect(app.mimeType, app.uri).to.equal(RESOURCE_MIME_TYPE);
      expect(app.title, app.uri).to.be.a('string');
      expect((app._meta as Structured).ui.csp, app.uri).to.deep.equal(csp());
    }
  });

  it('reads each app as one whole HTML document with its CSP on the content, which loads nothing from elsewhere', async () => {
    for (const uri of Object.keys(APPS)) {
      const { contents } = await host.readResource({ uri });
      expect(contents, uri).to.have.length(1);
      const [content] = contents as { uri: string; mimeType: string; text: string; _meta: Structured }[];
      expect(content!.uri).to.equal(uri);
      expect(content!.mimeType).to.equal(RESOURCE_MIME_TYPE);
      expect(content!._meta.ui.csp, uri).to.deep.equal(csp());
      expect(content!.text).to.match(/^<!doctype html>/i);
      // Script and styles inline: no src= or href= to another file.
      expect(content!.text).to.not.match(/<script[^>]+src=|<link[^>]+href=/);
    }
  });

  it('keeps each app, inlined whole, under 100 KB gzipped', async () => {
    for (const uri of Object.keys(APPS)) {
      const { contents } = await host.readResource({ uri });
      expect(gzipSync((contents[0] as { text: string }).text).length, uri).to.be.below(100 * 1024);
    }
  });

  it('names each tool’s app in _meta.ui and the legacy key; the other tools carry none', async () => {
    const { tools } = await host.listTools();
    const expected = new Map(Object.entries(APPS).flatMap(([uri, names]) => names.map((name) => [name, uri] as const)));
    for (const tool of tools) {
      const uri = expected.get(tool.name);
      if (uri) expect(tool._meta, tool.name).to.deep.equal({ ui: { resourceUri: uri }, 'ui/resourceUri': uri });
      else expect(tool._meta?.ui, tool.name).to.equal(undefined);
    }
    expect([...expected.keys()].every((name) => tools.some((t) => t.name === name))).to.equal(true);
  });

  it('gives a client without the extension exactly the results a host of apps gets', async () => {
    const row = await photoWithThumbnails(env, user.apiKey, 'same.png');
    for (const [name, args] of [
      ['list_files', {}],
      ['get_file', { filename: row.filename }],
      ['request_file_from_user', { note: 'the same' }],
    ] as const) {
      const [withApps, without] = [await host.callTool({ name, arguments: args }), await plain.callTool({ name, arguments: args })];
      if (name === 'request_file_from_user') {
        // A new link each call: the same shape, the same fields.
        expect(Object.keys(without.structuredContent!)).to.deep.equal(Object.keys(withApps.structuredContent!));
        continue;
      }
      expect(without, name).to.deep.equal(withApps);
    }
  });

  it('signs a private file’s thumbnails in assistants’ results, so a sandbox without cookies can load them; unsigned they stay the owner’s', async () => {
    const row = await photoWithThumbnails(env, user.apiKey, 'secret.png', 3);
    expect((await env.api.patch(`/api/user/images/${row.filename}/privacy`, { key: user.apiKey, json: { isPrivate: true } })).status).to.equal(200);
    const file = (await host.callTool({ name: 'get_file', arguments: { filename: row.filename } })).structuredContent as Structured;
    expect(file.isPrivate).to.equal(true);
    for (const url of [file.thumbnailUrl as string, file.previewUrl as string]) {
      expect(url).to.match(/\?expires=\d+&signature=/);
      const signed = await fetch(url);
      expect(signed.status, url).to.equal(200);
      expect(signed.headers.get('content-type')).to.equal('image/webp');
      expect(signed.headers.get('cache-control')).to.equal('private, no-cache');
      expect((await fetch(url.replace(/\?.*$/, ''))).status).to.equal(404);
      expect((await fetch(url.replace(/signature=./, 'signature=x'))).status).to.equal(404);
    }
    // The dashboard's record keeps the plain URL, which its signed-in owner loads with the cookie.
    const listed = await env.api.get<Structured>('/api/user/dashboard', { key: user.apiKey });
    const record = (listed.body.data.uploads as Structured[]).find((f) => f.filename === row.filename)!;
    expect(record.thumbnailUrl).to.equal(file.thumbnailUrl.replace(/\?.*$/, ''));
  });

  describe('a drop link, sent to from the drop zone’s sandbox (another origin)', () => {
    const origin = 'https://sandbox.apps-host.example';
    const tokenOf = (link: Structured) => new URL(link.url as string).pathname.split('/').pop()!;
    const tus = (path: string, method: string, headers: Record<string, string>, body?: Buffer) =>
      fetch(`${site}${path}`, { method, headers: { origin, 'Tus-Resumable': '1.0.0', ...headers }, ...(body ? { body: new Uint8Array(body) } : {}) });
    const meta = (name: string) => `filename ${Buffer.from(name).toString('base64')}`;

    it('takes a one-request drop cross-origin (the JSON answer is readable there) and check_file_handoff returns the file at once', async () => {
      const link = (await host.callTool({ name: 'request_file_from_user', arguments: {} })).structuredContent as Structured;
      // Upload progress makes the browser ask first.
      const preflight = await fetch(link.url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers.get('access-control-allow-origin')).to.equal('*');
      expect(preflight.headers.get('access-control-allow-methods')).to.equal('POST');
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(Buffer.from('hello from the chat'))]), 'hello.txt');
      const res = await fetch(link.url, { method: 'POST', headers: { origin, accept: 'application/json' }, body: form });
      expect(res.status, await res.clone().text()).to.equal(200);
      expect(res.headers.get('access-control-allow-origin')).to.equal('*');
      const handoff = (await host.callTool({ name: 'check_file_handoff', arguments: { id: link.id, waitSeconds: 0 } })).structuredContent as Structured;
      expect(handoff.status).to.equal('received');
      expect(handoff.file).to.include({ originalName: 'hello.txt', size: 19 });
    });

    it('takes a resumable (tus) upload carrying the link’s token, under the link’s rules: once, within its size', async () => {
      const link = (await host.callTool({ name: 'request_file_from_user', arguments: { maxSizeBytes: 5000 } })).structuredContent as Structured;
      const token = tokenOf(link);
      const preflight = await fetch(`${site}/api/uploads`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-drop-token,tus-resumable,upload-length,upload-metadata' } });
      expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).to.include('x-drop-token');
      expect((await tus('/api/uploads', 'POST', { 'Upload-Length': '5001', 'X-Drop-Token': token })).status).to.equal(413);
      expect((await tus('/api/uploads', 'POST', { 'Upload-Length': '10', 'X-Drop-Token': 'A'.repeat(32) })).status).to.equal(404);

      const bytes = Buffer.from('0123456789'.repeat(300));
      const created = await tus('/api/uploads', 'POST', { 'Upload-Length': String(bytes.length), 'Upload-Metadata': meta('big.txt'), 'X-Drop-Token': token });
      expect(created.status, await created.clone().text()).to.equal(201);
      expect(created.headers.get('access-control-allow-origin')).to.equal('*');
      const location = new URL(created.headers.get('location')!, site).pathname;
      // Someone else's upload is not there for an account's key.
      expect((await tus(location, 'HEAD', { 'x-api-key': user.apiKey })).status).to.equal(404);
      const patched = await tus(location, 'PATCH', { 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream', 'X-Drop-Token': token }, bytes);
      expect(patched.status, await patched.clone().text()).to.equal(204);

      const handoff = (await host.callTool({ name: 'check_file_handoff', arguments: { id: link.id, waitSeconds: 0 } })).structuredContent as Structured;
      expect(handoff.status).to.equal('received');
      expect(handoff.file).to.include({ originalName: 'big.txt', size: bytes.length, source: 'drop' });
      // Spent: a second upload into the link is refused at creation.
      expect((await tus('/api/uploads', 'POST', { 'Upload-Length': '10', 'X-Drop-Token': token })).status).to.equal(410);
    });
  });
});
