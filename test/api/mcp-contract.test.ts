import type { Client, Tool } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import sharp from 'sharp';
import type { z } from 'zod';
import { portableJson } from '../../api/mcp/portable-schema.js';
import { accountOverviewSchema } from '../../shared/contracts/account.contract.js';
import { dropLinkSchema } from '../../shared/contracts/drop-link.contract.js';
import { fileViewSchema } from '../../shared/contracts/file.contract.js';
import { folderSchema } from '../../shared/contracts/folder.contract.js';
import { uploadResultSchema } from '../../shared/contracts/upload.contract.js';
import { MCP_REVISIONS, mcpClient } from '../helpers/mcp-client.js';
import { pngBytes } from '../helpers/media.js';
import { connectAssistant, SPEC_TOOL_NAMES } from '../helpers/oauth.js';
import { freePort } from '../helpers/ports.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { getWithHost } from '../helpers/uploads.js';

type Json = Record<string, any>;
type Hints = [readOnly: boolean, destructive: boolean, idempotent: boolean, openWorld: boolean];

// What each tool does, as its annotations must say it.
const HINTS: Record<string, Hints> = {
  get_account: [true, false, true, false],
  list_files: [true, false, true, false],
  get_file: [true, false, true, false],
  view_file: [true, false, true, false],
  check_file_handoff: [true, false, true, false],
  list_folders: [true, false, true, false],
  request_file_from_user: [false, false, false, false],
  upload_file: [false, false, false, false],
  upload_from_url: [false, false, false, true],
  rename_files: [false, false, true, false],
  move_files: [false, false, true, false],
  create_folder: [false, false, true, false],
  share_folder: [false, true, true, false],
  delete_files: [false, true, true, false],
  delete_folder: [false, true, true, false],
};

/** Every (sub)schema of a JSON Schema document, with where it is. */
function* subschemas(node: unknown, path = '#'): Generator<[string, Json]> {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* subschemas(item, `${path}/${i}`);
    return;
  }
  yield [path, node as Json];
  for (const [key, value] of Object.entries(node)) {
    if (['properties', '$defs'].includes(key)) for (const [name, schema] of Object.entries(value as Json)) yield* subschemas(schema, `${path}/${key}/${name}`);
    else if (['items', 'anyOf', 'oneOf', 'allOf', 'additionalProperties', 'not'].includes(key)) yield* subschemas(value, `${path}/${key}`);
  }
}

const contractJson = (schema: z.ZodType) =>
  portableJson((schema['~standard'] as unknown as { jsonSchema: { output(o: { target: string }): Json } }).jsonSchema.output({ target: 'draft-2020-12' }));

describe('MCP tool contract: strict portable schemas, titles, annotations, icons, resource links', function () {
  this.timeout(60_000);
  let env: TestEnv;
  let remote: Server;
  let origin: string;
  let mcpUrl: string;
  let token: string;
  let client: Client;
  let tools: Map<string, Tool>;
  let photo: Buffer;

  before(async () => {
    // A picture view_file can decode.
    photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } }).png().toBuffer();
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    const image = pngBytes(3000, 5);
    remote = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png', 'content-length': image.length }).end(image));
    await new Promise<void>((resolve) => remote.listen(port, '127.0.0.1', resolve));
    env = await createTestEnv({ workers: true, env: { CAPTCHA_MAX_NUMBER: '2000', URL_FETCH_ALLOWED_ORIGINS: origin } });
    mcpUrl = `${env.container.config.baseUrl}/mcp`;
    const user = await env.createAccount({ plan: 'pro' });
    token = (await connectAssistant(env, { user })).tokens.access_token;
    client = await mcpClient(mcpUrl, token, '2026-07-28');
    tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
  });
  after(async () => {
    await client?.close();
    await env?.close();
    remote?.close();
  });

  it('lists output schemas that are strict (no property beyond the contract), nullable as anyOf, with no $ref at the root', () => {
    expect([...tools.keys()]).to.have.members(SPEC_TOOL_NAMES);
    for (const tool of tools.values()) {
      expect(tool.outputSchema!.$ref, tool.name).to.equal(undefined);
      for (const [path, schema] of subschemas(tool.outputSchema)) {
        if (schema.type === 'object') expect(schema.additionalProperties, `${tool.name} ${path}`).to.equal(false);
      }
      for (const [path, schema] of [...subschemas(tool.inputSchema), ...subschemas(tool.outputSchema)]) {
        expect(Array.isArray(schema.type), `${tool.name} ${path}: type ${JSON.stringify(schema.type)}`).to.equal(false);
        expect(schema, `${tool.name} ${path}`).to.not.have.property('example');
      }
    }
    // A nullable field as the Inspector's --strict asks for it.
    expect((tools.get('list_files')!.outputSchema as Json).properties.nextCursor).to.deep.equal({ anyOf: [{ type: 'string' }, { type: 'null' }] });
  });

  it('derives the output schemas from the shared record contracts', () => {
    const fromContracts: [string, z.ZodType][] = [
      ['get_file', fileViewSchema],
      ['get_account', accountOverviewSchema],
      ['check_file_handoff', dropLinkSchema],
      ['request_file_from_user', dropLinkSchema],
      ['upload_file', uploadResultSchema],
      ['upload_from_url', uploadResultSchema],
      ['create_folder', folderSchema],
    ];
    for (const [name, contract] of fromContracts) expect(tools.get(name)!.outputSchema, name).to.deep.equal(contractJson(contract));
    const fileView = contractJson(fileViewSchema);
    expect((tools.get('list_files')!.outputSchema as Json).$defs.FileView).to.deep.include({ properties: fileView.properties, required: fileView.required });
  });

  it('refuses, by the listed schema, a result with a field the contract lacks, and takes null where the contract allows it', async () => {
    const validate = new AjvJsonSchemaValidator().getValidator(tools.get('move_files')!.outputSchema!);
    expect(validate({ results: [], folderId: null }).valid).to.equal(true);
    expect(validate({ results: [], folderId: null, extra: 1 }).valid).to.equal(false);
    expect(validate({ results: [{ filename: 'a.png', ok: true, extra: 1 }], folderId: null }).valid).to.equal(false);
  });

  it('gives every tool a title and the annotations its behaviour calls for', () => {
    for (const [name, [readOnlyHint, destructiveHint, idempotentHint, openWorldHint]] of Object.entries(HINTS)) {
      const tool = tools.get(name)!;
      expect(tool.title, name).to.be.a('string').and.not.equal('');
      expect(tool.annotations, name).to.deep.equal({ readOnlyHint, destructiveHint, idempotentHint, openWorldHint });
    }
  });

  it('gives the server and every tool our icon as SVG and PNG, served from our origin and cacheable', async () => {
    const icons = client.getServerVersion()!.icons!;
    const base = env.container.config.baseUrl;
    expect(icons).to.deep.equal([
      { src: `${base}/assets/favicon.svg`, mimeType: 'image/svg+xml', sizes: ['any'] },
      { src: `${base}/assets/icon-256.png`, mimeType: 'image/png', sizes: ['256x256'] },
    ]);
    for (const tool of tools.values()) expect(tool.icons, tool.name).to.deep.equal(icons);
    for (const icon of icons) {
      const res = await fetch(icon.src);
      expect(res.status, icon.src).to.equal(200);
      expect(res.headers.get('content-type')!.split(';')[0]).to.equal(icon.mimeType);
      expect(res.headers.get('cache-control')).to.match(/^public, max-age=\d+/);
      const body = Buffer.from(await res.arrayBuffer());
      if (icon.mimeType === 'image/png') expect(await sharp(body).metadata()).to.include({ format: 'png', width: 256, height: 256 });
      else expect(body.toString()).to.match(/^<svg /);
    }
  });

  for (const revision of MCP_REVISIONS) {
    it(`answers every tool with today's text and a structured result the SDK client validates against the listed schema (${revision})`, async () => {
      const speaker = revision === '2026-07-28' ? client : await mcpClient(mcpUrl, token, revision);
      const seen = new Set<string>();
      // toolDefinition: the client validates structuredContent against that tool's listed outputSchema.
      const call = async (name: string, args: Json = {}) => {
        seen.add(name);
        const result = await speaker.callTool({ name, arguments: args }, { toolDefinition: tools.get(name)! });
        expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).to.not.equal(true);
        expect(JSON.parse((result.content as { text: string }[])[0]!.text), name).to.deep.equal(result.structuredContent);
        return result.structuredContent as Json;
      };
      try {
        await call('get_account');
        const uploaded = await call('upload_file', { filename: `photo-${revision}.png`, contentBase64: photo.toString('base64') });
        await call('upload_from_url', { url: `${origin}/cat.png` });
        await call('list_files');
        await call('get_file', { filename: uploaded.filename });
        await call('view_file', { filename: uploaded.filename });
        const link = await call('request_file_from_user');
        await call('check_file_handoff', { id: link.id, waitSeconds: 0 });
        const folder = await call('create_folder', { name: `Contract ${revision}` });
        await call('list_folders');
        await call('rename_files', { renames: [{ filename: uploaded.filename, newFilename: `renamed-${revision}.png` }, { filename: 'missing.png', newFilename: 'x.png' }] });
        await call('move_files', { filenames: [`renamed-${revision}.png`], folderId: folder.id });
        await call('share_folder', { folderId: folder.id });
        await call('share_folder', { folderId: folder.id, shared: false });
        await call('delete_folder', { folderId: folder.id });
        await call('delete_files', { filenames: [`renamed-${revision}.png`] });
        expect([...seen]).to.have.members(SPEC_TOOL_NAMES);
      } finally {
        if (speaker !== client) await speaker.close();
      }
    });
  }

  it('adds to list_files and get_file a resource_link per file: its hosted URL (signed when private), name, type and size', async () => {
    const account = await env.createAccount();
    await env.api.patch('/api/user/settings', { key: account.apiKey, json: { privateByDefault: true } });
    const own = await mcpClient(mcpUrl, (await connectAssistant(env, { user: account })).tokens.access_token, '2026-07-28');
    try {
      const bytes = pngBytes(1500, 2);
      const uploaded = (await own.callTool({ name: 'upload_file', arguments: { filename: 'secret.png', contentBase64: bytes.toString('base64') } })).structuredContent as Json;
      const listed = await own.callTool({ name: 'list_files', arguments: {} });
      const file = (listed.structuredContent as Json).files[0];
      expect(file).to.include({ filename: uploaded.filename, isPrivate: true });
      const link = { type: 'resource_link', uri: file.url, name: file.filename, title: 'secret.png', mimeType: 'image/png', size: bytes.length };
      expect(listed.content).to.deep.equal([{ type: 'text', text: JSON.stringify(listed.structuredContent) }, link]);
      const single = await own.callTool({ name: 'get_file', arguments: { filename: uploaded.filename } });
      // Its own signed URL: a signature made a second later carries a later expiry.
      const singleLink = { ...link, uri: (single.structuredContent as Json).url };
      expect(single.content).to.deep.equal([{ type: 'text', text: JSON.stringify(single.structuredContent) }, singleLink]);
      // The link is the signed one: it serves the bytes, the bare path does not.
      expect(new URL(link.uri).searchParams.has('signature')).to.equal(true);
      const served = await getWithHost(link.uri);
      expect(served.status).to.equal(200);
      expect(served.body.equals(bytes)).to.equal(true);
      const bare = new URL(link.uri);
      expect((await getWithHost(`${bare.origin}${bare.pathname}`)).status).to.equal(404);
    } finally {
      await own.close();
    }
  });
});
