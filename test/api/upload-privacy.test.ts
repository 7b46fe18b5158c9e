import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import sharp from 'sharp';
import * as tus from 'tus-js-client';
import { fixtureDir, GPS, locationTags, phoneJpeg, tagsOf } from '../helpers/metadata-fixtures.js';
import { pngBytes } from '../helpers/media.js';
import { connectAssistant } from '../helpers/oauth.js';
import { freePort } from '../helpers/ports.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, getWithHost, storageUsedBy, upload } from '../helpers/uploads.js';

type Account = { id: string; username: string; apiKey: string };
type Result = { url: string; filename: string; sizeBytes: number };

describe('account settings, metadata removal on every way in, private by default (issue 40)', function () {
  this.timeout(120_000);
  let env: TestEnv;
  let remote: Server;
  let origin: string;
  let photo: Buffer;

  before(async () => {
    photo = await phoneJpeg();
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    remote = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': photo.length }).end(photo));
    await new Promise<void>((resolve) => remote.listen(port, '127.0.0.1', resolve));
    env = await createTestEnv({ workers: true, env: { URL_FETCH_ALLOWED_ORIGINS: origin } });
  });
  after(async () => {
    await env.close();
    remote.close();
  });

  const settings = (key: string, json?: unknown) => (json === undefined ? env.api.get('/api/user/settings', { key }) : env.api.patch('/api/user/settings', { key, json }));

  describe('GET/PATCH /api/user/settings', () => {
    it('answers the defaults, changes any subset and answers all of them', async () => {
      const alice = await env.createAccount();
      expect((await settings(alice.apiKey)).body).to.deep.equal({ success: true, data: { stripMetadata: true, privateByDefault: false } });
      const changed = await settings(alice.apiKey, { privateByDefault: true });
      expect(changed.status).to.equal(200);
      expect(changed.body).to.deep.equal({ success: true, data: { stripMetadata: true, privateByDefault: true } });
      expect((await settings(alice.apiKey, { stripMetadata: false, privateByDefault: false })).body.data).to.deep.equal({ stripMetadata: false, privateByDefault: false });
      expect((await settings(alice.apiKey, {})).body.data).to.deep.equal({ stripMetadata: false, privateByDefault: false });
    });

    it('refuses wrong types and unknown keys with 400 and changes nothing; 401 without a key', async () => {
      const bob = await env.createAccount();
      for (const body of [{ stripMetadata: 'no' }, { privateByDefault: 1 }, { privateByDefault: true, stripMetadata: null }, { privateByDefault: true, colour: 'red' }, [true], 'true']) {
        const res = await settings(bob.apiKey, body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.success).to.equal(false);
        expect(res.body.error).to.be.a('string');
      }
      expect((await settings(bob.apiKey)).body.data).to.deep.equal({ stripMetadata: true, privateByDefault: false });
      expect((await env.api.get('/api/user/settings')).status).to.equal(401);
    });
  });

  /** The file behind an upload answer: its row, its stored bytes and what its URL serves. */
  async function storedFile(account: Account, result: Result) {
    const row = (await fileRowsOf(env, account.id)).find((r) => r.filename === result.filename)!;
    const object = await env.container.storage.get(row.objectKey);
    const stored = Buffer.concat(await object!.body.toArray());
    const served = await getWithHost(result.url);
    expect(served.status).to.equal(200);
    expect(Number(served.headers['content-length'])).to.equal(stored.length);
    expect(served.body.equals(stored)).to.equal(true);
    return { row, stored };
  }

  /** Stored and served without GPS or camera, Orientation 6 kept; the size, the answer and the charge are the stored length. */
  async function expectStripped(account: Account, result: Result, chargedBefore: number) {
    const { row, stored } = await storedFile(account, result);
    const tags = await tagsOf(stored);
    expect(locationTags(tags)).to.deep.equal([]);
    expect(tags['IFD0:Orientation']).to.equal(6);
    expect(stored.length).to.be.below(photo.length);
    expect(row.size).to.equal(stored.length);
    expect(result.sizeBytes).to.equal(stored.length);
    expect((await storageUsedBy(env, account.id)) - chargedBefore).to.equal(stored.length);
    return row;
  }

  async function mcpUpload(account: Account, bytes: Buffer): Promise<Result> {
    const { tokens } = await connectAssistant(env, { user: account });
    const client = new Client({ name: 'hfs-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${env.container.config.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } } }));
    try {
      const result = await client.callTool({ name: 'upload_file', arguments: { filename: 'phone.jpg', contentBase64: bytes.toString('base64') } });
      expect(result.isError, JSON.stringify(result.content)).to.not.equal(true);
      return result.structuredContent as Result;
    } finally {
      await client.close();
    }
  }

  async function tusUpload(account: Account, bytes: Buffer): Promise<Result> {
    let started!: tus.Upload;
    await new Promise<void>((resolve, reject) => {
      started = new tus.Upload(bytes, {
        endpoint: `${env.web.url}/api/uploads`,
        retryDelays: [],
        headers: { 'x-api-key': account.apiKey },
        metadata: { filename: 'phone.jpg' },
        onSuccess: () => resolve(),
        onError: reject,
      });
      started.start();
    });
    return (await env.api.get(`${new URL(started.url!).pathname}/result`, { key: account.apiKey })).body.data;
  }

  async function dropUpload(account: Account, bytes: Buffer): Promise<Result> {
    const link = (await env.api.post('/api/user/drop-links', { key: account.apiKey, json: {} })).body.data as { url: string };
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), 'phone.jpg');
    const res = await fetch(`${env.container.config.baseUrl}${new URL(link.url).pathname}`, { method: 'POST', body: form, headers: { accept: 'application/json' } });
    expect(res.status).to.equal(200);
    const [row] = await fileRowsOf(env, account.id);
    const dashboard = (await env.api.get('/api/user/dashboard', { key: account.apiKey })).body.data as { uploads: Result[] };
    const file = dashboard.uploads.find((f) => f.filename === row!.filename)!;
    return { url: file.url, filename: row!.filename, sizeBytes: ((await res.json()) as { data: { size: number } }).data.size };
  }

  async function replaceUpload(account: Account, bytes: Buffer): Promise<Result> {
    const first = (await upload(env, { key: account.apiKey, bytes: pngBytes(300), json: true })).body.data as Result;
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), 'phone.jpg');
    const res = await env.api.patch(`/api/user/images/${first.filename}/replace`, { key: account.apiKey, body: form });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const [row] = await fileRowsOf(env, account.id);
    return { url: res.body.data.url, filename: first.filename, sizeBytes: row!.size };
  }

  const WAYS_IN: [string, (account: Account, bytes: Buffer) => Promise<Result>][] = [
    ['multipart', async (account, bytes) => (await upload(env, { key: account.apiKey, bytes, name: 'phone.jpg', json: true })).body.data],
    ['a URL on a loopback origin', async (account) => (await env.api.post('/api/upload/url', { key: account.apiKey, json: { imageUrl: `${origin}/phone.jpg` } })).body.data],
    ['tus', tusUpload],
    ['MCP upload_file', mcpUpload],
    ['a drop link', dropUpload],
    ['replace', replaceUpload],
  ];

  describe('a phone JPEG with GPS and Orientation 6', () => {
    before(async () => {
      const tags = await tagsOf(photo);
      expect(tags).to.include({ 'IFD0:Orientation': 6, 'IFD0:Make': 'Canon' });
      expect(tags).to.have.property('GPS:GPSLatitude');
    });

    for (const [way, send] of WAYS_IN) {
      it(`through ${way}: stored and served without GPS or camera, orientation kept; size and charge are the stored bytes`, async () => {
        const account = await env.createAccount({ plan: 'pro' });
        const before = await storageUsedBy(env, account.id);
        const result = await send(account, photo);
        await expectStripped(account, result, before);
      });
    }

    it('with stripMetadata off, stores exactly the uploaded bytes', async () => {
      const account = await env.createAccount();
      await settings(account.apiKey, { stripMetadata: false });
      const result = (await upload(env, { key: account.apiKey, bytes: photo, name: 'phone.jpg', json: true })).body.data as Result;
      const { stored, row } = await storedFile(account, result);
      expect(stored.equals(photo)).to.equal(true);
      expect(row.size).to.equal(photo.length);
    });
  });

  describe('containers stripped by a tool', () => {
    it('an MP4 with a location loses it (ffmpeg stream copy); the video stays', async () => {
      const file = join(fixtureDir, 'located.mp4');
      execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10', '-t', '1', '-pix_fmt', 'yuv420p', '-metadata', 'location=+48.8582+002.2945/', '-metadata', 'make=Apple', file]);
      const video = readFileSync(file);
      expect(locationTags(await tagsOf(video))).to.not.deep.equal([]);
      const account = await env.createAccount({ plan: 'pro' });
      const result = (await upload(env, { key: account.apiKey, bytes: video, name: 'located.mp4', json: true })).body.data as Result;
      const { stored, row } = await storedFile(account, result);
      expect(row.mimeType).to.equal('video/mp4');
      const tags = await tagsOf(stored);
      expect(locationTags(tags)).to.deep.equal([]);
      expect(tags).to.include({ 'Track1:ImageWidth': 160, 'Track1:ImageHeight': 120 });
      expect(result.sizeBytes).to.equal(stored.length);
    });

    it('an AVIF (HEIF) with GPS loses it (exiftool); the image still decodes', async () => {
      const file = join(fixtureDir, 'located.avif');
      await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c33' } }).avif().toFile(file);
      execFileSync('exiftool', ['-q', '-q', '-overwrite_original', ...GPS, '-Make=Canon', file]);
      const image = readFileSync(file);
      expect(await tagsOf(image)).to.have.property('GPS:GPSLatitude');
      const account = await env.createAccount({ plan: 'pro' });
      const result = (await upload(env, { key: account.apiKey, bytes: image, name: 'located.avif', json: true })).body.data as Result;
      const { stored, row } = await storedFile(account, result);
      expect(row.mimeType).to.equal('image/avif');
      expect(locationTags(await tagsOf(stored))).to.deep.equal([]);
      expect(await sharp(stored).metadata()).to.include({ width: 64, height: 48 });
    });

    it('a HEIC as an iPhone sends it, with GPS, loses it (exiftool); the image item stays', async () => {
      const png = join(fixtureDir, 'heic-source.png');
      const file = join(fixtureDir, 'located.heic');
      await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3c3' } }).png().toFile(png);
      execFileSync('heif-enc', ['-q', '50', '-o', file, png]);
      execFileSync('exiftool', ['-q', '-q', '-overwrite_original', ...GPS, '-Make=Apple', '-Model=iPhone 15', file]);
      const image = readFileSync(file);
      expect(await tagsOf(image)).to.include({ 'IFD0:Make': 'Apple' }).and.have.property('GPS:GPSLatitude');
      const account = await env.createAccount({ plan: 'pro' });
      const result = (await upload(env, { key: account.apiKey, bytes: image, name: 'IMG_0001.HEIC', json: true })).body.data as Result;
      const { stored, row } = await storedFile(account, result);
      expect(row.mimeType).to.equal('image/heic');
      const tags = await tagsOf(stored);
      expect(locationTags(tags)).to.deep.equal([]);
      expect(tags).to.not.have.property('IFD0:Model');
      expect(tags).to.include({ 'File:FileType': 'HEIC', 'File:ImageWidth': 64, 'File:ImageHeight': 48 });
      expect(result.sizeBytes).to.equal(stored.length);
    });
  });

  describe('private by default', () => {
    it('makes new uploads private: the plain URL is 404 to anyone, the answer’s signed URL works at once for 7 days', async () => {
      const account = await env.createAccount();
      await settings(account.apiKey, { privateByDefault: true });
      const bytes = pngBytes(500, 3);
      const result = (await upload(env, { key: account.apiKey, bytes, json: true })).body.data as Result;
      const signed = new URL(result.url);
      const expires = Number(signed.searchParams.get('expires'));
      expect(expires - Date.now() / 1000).to.be.within(7 * 24 * 3600 - 60, 7 * 24 * 3600 + 1);
      const served = await getWithHost(result.url);
      expect(served.status).to.equal(200);
      expect(served.body.equals(bytes)).to.equal(true);
      expect((await getWithHost(`${signed.origin}${signed.pathname}`)).status).to.equal(404);
      const [row] = await fileRowsOf(env, account.id);
      expect(row!.isPrivate).to.equal(true);
    });

    it('leaves uploads public while it is off', async () => {
      const account = await env.createAccount();
      const result = (await upload(env, { key: account.apiKey, bytes: pngBytes(500, 4), json: true })).body.data as Result;
      expect(result.url).to.not.include('signature=');
      expect((await getWithHost(result.url)).status).to.equal(200);
    });
  });
});
