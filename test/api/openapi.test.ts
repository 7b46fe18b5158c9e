import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { expect } from 'chai';
import { apiRouter } from '../../api/routes/index.js';
import { createLogger } from '../../shared/logger.js';
import { NotificationHub } from '../../shared/services/notifications/notification-hub.js';
import { solveCaptcha } from '../helpers/captcha.js';
import { createFolder } from '../helpers/folders.js';
import { pngBytes } from '../helpers/media.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { upload } from '../helpers/uploads.js';

// ajv-formats is CommonJS: its plugin is the `default` of module.exports.
const addFormats = ajvFormats.default;

type Document = { paths: Record<string, Record<string, { responses: Record<string, { $ref?: string }> }>> };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** JSON pointer escaping of one reference token. */
const token = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

describe('OpenAPI document (GET /api/openapi.json)', () => {
  let env: TestEnv;
  let document: Document;
  let ajv: Ajv2020;

  before(async () => {
    // A cheap captcha: the sign-in test solves one.
    env = await createTestEnv({ env: { CAPTCHA_MAX_NUMBER: '3000' } });
    const res = await env.api.get('/api/openapi.json');
    document = res.body;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(document as object, 'openapi');
  });
  after(() => env.close());

  /** Checks a real answer against the schema the document gives for it (following a shared response's $ref). */
  function expectDocumented(path: string, method: string, res: { status: number; body: unknown }) {
    const response = document.paths[path]?.[method]?.responses[String(res.status)];
    expect(response, `${method.toUpperCase()} ${path} documents no ${res.status}`).to.exist;
    const base = response!.$ref ? response!.$ref.replace(/^#/, 'openapi#') : `openapi#/paths/${token(path)}/${method}/responses/${res.status}`;
    const validate = ajv.getSchema(`${base}/content/${token('application/json')}/schema`)!;
    expect(validate(res.body), `${method.toUpperCase()} ${path} ${res.status}: ${JSON.stringify(validate.errors)}`).to.equal(true);
  }

  it('is valid OpenAPI 3.1, served as cacheable JSON', async () => {
    const res = await env.api.get('/api/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(res.headers.get('cache-control')).to.equal('public, max-age=300');
    const validator = new Validator();
    const result = await validator.validate(res.body);
    expect(result.errors ?? [], JSON.stringify(result.errors)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
    expect(validator.version).to.equal('3.1');

    // fetch adds `cache-control: no-cache` to a conditional request unless one is given.
    const again = await env.api.get('/api/openapi.json', { headers: { 'if-none-match': res.headers.get('etag')!, 'cache-control': 'max-age=0' } });
    expect(again.status).to.equal(304);
  });

  it('declares the x-api-key and Bearer session schemes', () => {
    const schemes = (document as unknown as { components: { securitySchemes: Record<string, unknown> } }).components.securitySchemes;
    expect(schemes.apiKey).to.deep.include({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(schemes.bearer).to.deep.include({ type: 'http', scheme: 'bearer' });
  });

  it('documents exactly the routes the API router has', () => {
    const hub = new NotificationHub(env.container.redis, 'unused', createLogger('silent'));
    const routed = new Set<string>();
    for (const layer of apiRouter(env.container, hub).stack) {
      for (const method of layer.methods.filter((m) => m !== 'HEAD')) {
        routed.add(`${method} ${String(layer.path).replace(/:(\w+)/g, '{$1}')}`);
      }
    }
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of Object.keys(item).filter((m) => METHODS.includes(m))) documented.add(`${method.toUpperCase()} ${path}`);
    }
    expect([...routed].filter((r) => !documented.has(r)), 'routes missing from the document').to.deep.equal([]);
    expect([...documented].filter((d) => !routed.has(d)), 'documented routes that do not exist').to.deep.equal([]);
  });

  describe('real answers match the documented response schemas', () => {
    let pro: { apiKey: string };
    let folderId: string;

    before(async () => {
      pro = await env.createAccount({ plan: 'pro' });
      folderId = await createFolder(env, pro, 'holidays');
      await env.api.post(`/api/user/folders/${folderId}/key`, { key: pro.apiKey });
    });

    it('POST /api/upload (JSON)', async () => {
      const res = await upload(env, { key: pro.apiKey, bytes: pngBytes(3000, 1), name: 'cat.png', fields: { expiry: '1d' }, json: true });
      expect(res.status).to.equal(200);
      expectDocumented('/api/upload', 'post', res);
    });

    it('GET /api/user/dashboard', async () => {
      await upload(env, { key: pro.apiKey, bytes: pngBytes(2000, 2), json: true });
      const res = await env.api.get('/api/user/dashboard?limit=5', { key: pro.apiKey });
      expect(res.status).to.equal(200);
      expect(res.body.data.uploads).to.not.be.empty;
      expect(res.body.data.folderKeys).to.have.length(1);
      expectDocumented('/api/user/dashboard', 'get', res);
    });

    it('GET /api/user/folders and /api/user/folder-keys', async () => {
      const folders = await env.api.get('/api/user/folders', { key: pro.apiKey });
      expect(folders.body.data).to.have.length(1);
      expectDocumented('/api/user/folders', 'get', folders);
      expectDocumented('/api/user/folder-keys', 'get', await env.api.get('/api/user/folder-keys', { key: pro.apiKey }));
    });

    it('POST /api/auth/login, then GET /api/auth/me with the key and with its Bearer session', async () => {
      expectDocumented('/api/auth/me', 'get', await env.api.get('/api/auth/me', { key: pro.apiKey }));
      const account = await env.createAccount({ password: 'bearer-pass-123' });
      const login = await env.api.post('/api/auth/login', {
        json: { username: account.username, password: 'bearer-pass-123', captchaToken: await solveCaptcha(env.api) },
      });
      expect(login.status).to.equal(200);
      expectDocumented('/api/auth/login', 'post', login);
      const res = await env.api.get('/api/auth/me', { headers: { authorization: `Bearer ${login.body.data.sessionToken}` } });
      expect(res.status).to.equal(200);
      expectDocumented('/api/auth/me', 'get', res);
    });

    it('error bodies: 400 with details, 401, 404', async () => {
      const invalid = await env.api.post('/api/user/folders', { key: pro.apiKey, json: { name: '' } });
      expect(invalid.status).to.equal(400);
      expect(invalid.body.details).to.be.an('array').that.is.not.empty;
      expectDocumented('/api/user/folders', 'post', invalid);

      const unknownKey = await env.api.get('/api/auth/me', { key: 'hfs_unknown' });
      expect(unknownKey.status).to.equal(401);
      expectDocumented('/api/auth/me', 'get', unknownKey);

      const missing = await env.api.delete('/api/user/images/nothing.png', { key: pro.apiKey });
      expect(missing.status).to.equal(404);
      expectDocumented('/api/user/images/{filename}', 'delete', missing);
    });

    it('GET /api/upload/config, /api/user/notifications, /api/user/subdomain, /api/ping', async () => {
      expectDocumented('/api/upload/config', 'get', await env.api.get('/api/upload/config'));
      expectDocumented('/api/user/notifications', 'get', await env.api.get('/api/user/notifications', { key: pro.apiKey }));
      expectDocumented('/api/user/subdomain', 'get', await env.api.get('/api/user/subdomain', { key: pro.apiKey }));
      expectDocumented('/api/ping', 'get', await env.api.get('/api/ping'));
    });

    it('the webhooks routes', async () => {
      // A public address literal: no DNS needed, and nothing is delivered (no worker runs here).
      const created = await env.api.post('/api/user/webhooks', { key: pro.apiKey, json: { url: 'http://93.184.216.34/hooks', events: ['file.uploaded'] } });
      expect(created.status, created.text).to.equal(200);
      expectDocumented('/api/user/webhooks', 'post', created);
      const id = created.body.data.id as string;
      expectDocumented('/api/user/webhooks', 'get', await env.api.get('/api/user/webhooks', { key: pro.apiKey }));
      expectDocumented('/api/user/webhooks/{id}', 'patch', await env.api.patch(`/api/user/webhooks/${id}`, { key: pro.apiKey, json: { description: 'docs' } }));
      expectDocumented('/api/user/webhooks/{id}/rotate-secret', 'post', await env.api.post(`/api/user/webhooks/${id}/rotate-secret`, { key: pro.apiKey }));
      expectDocumented('/api/user/webhooks/{id}/test', 'post', await env.api.post(`/api/user/webhooks/${id}/test`, { key: pro.apiKey }));
      const deliveries = await env.api.get(`/api/user/webhooks/${id}/deliveries`, { key: pro.apiKey });
      expect(deliveries.body.data).to.have.length(1);
      expectDocumented('/api/user/webhooks/{id}/deliveries', 'get', deliveries);
      expectDocumented('/api/user/webhooks/{id}', 'delete', await env.api.delete(`/api/user/webhooks/${id}`, { key: pro.apiKey }));
      const refused = await env.api.post('/api/user/webhooks', { key: pro.apiKey, json: { url: 'http://127.0.0.1/hooks', events: ['file.uploaded'] } });
      expect(refused.status).to.equal(400);
      expectDocumented('/api/user/webhooks', 'post', refused);
    });
  });
});
