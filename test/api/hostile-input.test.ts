import { expect } from 'chai';
import { MAX_JSON_DEPTH } from '../../api/middleware/body-parser.middleware.js';
import { UNSTORABLE_TEXT } from '../../shared/text-hygiene.js';
import { captureLogs, expectNoSqlOrStack } from '../helpers/log-capture.js';
import { pngBytes } from '../helpers/media.js';
import { ALL_SCOPES, authorizationRequest, connectAssistant } from '../helpers/oauth.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { storedObjects, upload } from '../helpers/uploads.js';

/** What cannot be stored as PostgreSQL text, as a URL or form escape: NUL, a byte that is no UTF-8, an encoded surrogate. */
const ESCAPES = ['%00', '%FF', '%ED%A0%80'];
/** The same inside JSON strings (JSON.stringify writes them as \u0000 and \ud800). */
const IN_JSON = ['\u0000', '\ud800'];

/** `params` as a query or form, with `escape` appended raw to the value of `name`. */
function encodedWith(params: Record<string, string>, name: string, escape: string): string {
  return Object.entries(params)
    .map(([key, value]) => `${key}=${encodeURIComponent(value)}${key === name ? escape : ''}`)
    .join('&');
}

describe('Hostile input is refused where it enters, with no SQL and no stack in the log', function () {
  this.timeout(60_000);
  const logs = captureLogs();
  let env: TestEnv;
  let base: string;
  let alice: { username: string; apiKey: string };
  let bob: { username: string; apiKey: string };
  let assistant: Awaited<ReturnType<typeof connectAssistant>>;
  let logOfTest: ReturnType<ReturnType<typeof captureLogs>['from']>;

  before(async () => {
    env = await createTestEnv({ logger: logs.logger, workers: true, env: { CAPTCHA_MAX_NUMBER: '2000' } });
    base = env.container.config.baseUrl;
    alice = await env.createAccount();
    bob = await env.createAccount();
    assistant = await connectAssistant(env, { user: bob });
  });
  after(() => env.close());
  beforeEach(() => {
    logOfTest = logs.from();
  });

  /** A JSON-RPC body posted to `/mcp` with the assistant's token. */
  const mcp = (body: string, path = '/mcp') =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${assistant.tokens.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    });

  describe('text that cannot be stored (NUL, invalid UTF-8): OAuth endpoints answer 400 invalid_request', () => {
    const expectInvalidRequest = async (res: Response, label: string) => {
      expect(res.status, label).to.equal(400);
      expect(await res.json(), label).to.deep.equal({ error: 'invalid_request', error_description: UNSTORABLE_TEXT });
    };
    const postForm = (path: string, body: string) =>
      fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

    it('in every parameter of GET /oauth/authorize', async () => {
      const request = await authorizationRequest(assistant.client, ALL_SCOPES);
      const params = { ...Object.fromEntries(new URL(request.url).searchParams), resource: `${base}/mcp` };
      expect(Object.keys(params)).to.include.members(['client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'resource']);
      for (const name of Object.keys(params)) {
        for (const escape of ESCAPES) {
          await expectInvalidRequest(await fetch(`${base}/oauth/authorize?${encodedWith(params, name, escape)}`, { redirect: 'manual' }), `${name} ${escape}`);
        }
      }
      expectNoSqlOrStack(logOfTest.lines());
    });

    it('in every parameter of POST /oauth/token, for both grants', async () => {
      const clientId = assistant.client.client.client_id;
      const common = { client_id: clientId, resource: `${base}/mcp` };
      const grants = [
        { ...common, grant_type: 'authorization_code', code: 'c'.repeat(43), redirect_uri: assistant.client.redirectUri, code_verifier: 'v'.repeat(43) },
        { ...common, grant_type: 'refresh_token', refresh_token: assistant.tokens.refresh_token!, scope: 'files:read' },
      ];
      for (const params of grants) {
        for (const name of Object.keys(params)) {
          for (const escape of ESCAPES) await expectInvalidRequest(await postForm('/oauth/token', encodedWith(params, name, escape)), `${params.grant_type} ${name} ${escape}`);
        }
      }
      expectNoSqlOrStack(logOfTest.lines());
    });

    it('in every parameter of POST /oauth/revoke, and the token still works', async () => {
      const params = { token: assistant.tokens.access_token, token_type_hint: 'access_token', client_id: assistant.client.client.client_id };
      for (const name of Object.keys(params)) {
        for (const escape of ESCAPES) await expectInvalidRequest(await postForm('/oauth/revoke', encodedWith(params, name, escape)), `${name} ${escape}`);
      }
      expect((await mcp(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }))).status).to.equal(200);
      expectNoSqlOrStack(logOfTest.lines());
    });

    it('in the JSON of POST /oauth/register', async () => {
      for (const text of IN_JSON) {
        const metadata = { redirect_uris: ['http://127.0.0.1:7777/callback'], client_name: `Evil${text}`, token_endpoint_auth_method: 'none' };
        await expectInvalidRequest(
          await fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) }),
          JSON.stringify(text),
        );
      }
      expectNoSqlOrStack(logOfTest.lines());
    });
  });

  describe('text that cannot be stored: REST answers 400 {success: false, error}', () => {
    const expectRefused = (res: { status: number; body: unknown }, label: string) => {
      expect(res.status, label).to.equal(400);
      expect(res.body, label).to.deep.equal({ success: false, error: UNSTORABLE_TEXT });
    };

    it('in path segments and query strings: file names, folder ids, album ids, search, keys, hosted files', async () => {
      const key = { key: alice.apiKey };
      for (const escape of ESCAPES) {
        expectRefused(await env.api.get(`/api/user/dashboard?search=cat${escape}`, key), `search ${escape}`);
        expectRefused(await env.api.delete(`/api/user/images/a${escape}b.png`, key), `filename ${escape}`);
        expectRefused(await env.api.put(`/api/user/images/a${escape}b.png/rename`, { ...key, json: { newFilename: 'c.png' } }), `rename ${escape}`);
        expectRefused(await env.api.delete(`/api/user/folders/${escape}`, key), `folder id ${escape}`);
        expectRefused(await env.api.get(`/api/album/x${escape}`), `album ${escape}`);
        expectRefused(await env.api.get(`/api/delete/a.png?apiKey=${alice.apiKey}${escape}`), `apiKey ${escape}`);
        expectRefused(await env.api.get(`/api/ping?unused=${escape}`), `unused query ${escape}`);
        expectRefused(await env.api.get(`/u/${alice.username}/a${escape}.png`), `hosted file ${escape}`);
        expectRefused(await env.api.get(`/s/${escape}`), `short link ${escape}`);
      }
      expectNoSqlOrStack(logOfTest.lines());
    });

    it('in JSON bodies: sign-in, registration, folder and file names, ids, URL-upload source, and keys', async () => {
      const key = { key: alice.apiKey };
      for (const text of IN_JSON) {
        const label = JSON.stringify(text);
        expectRefused(await env.api.post('/api/auth/login', { json: { username: `alice${text}`, password: 'correct-horse-battery', captchaToken: 'x' } }), `login ${label}`);
        expectRefused(await env.api.post('/api/auth/login', { json: { username: 'alice', password: `pass${text}word`, captchaToken: 'x' } }), `password ${label}`);
        expectRefused(await env.api.post('/api/auth/register', { json: { username: 'mallory', email: `m${text}@example.com`, password: 'correct-horse-battery', captchaToken: 'x' } }), `register ${label}`);
        expectRefused(await env.api.post('/api/user/folders', { ...key, json: { name: `trips${text}` } }), `folder ${label}`);
        expectRefused(await env.api.patch('/api/user/images/move', { ...key, json: { filenames: [`a${text}.png`], folderId: null } }), `move ${label}`);
        expectRefused(await env.api.post('/api/user/notifications/read', { ...key, json: { notificationId: `n${text}` } }), `notification ${label}`);
        expectRefused(await env.api.post('/api/upload/url', { ...key, json: { imageUrl: 'http://example.com/cat.png', source: `share${text}` } }), `source ${label}`);
        expectRefused(await env.api.post('/api/user/folders', { ...key, json: { name: 'trips', [`x${text}`]: 1 } }), `key ${label}`);
      }
      expect((await env.api.get('/api/user/folders', key)).body.data ?? []).to.have.length(0);
      expectNoSqlOrStack(logOfTest.lines());
    });

    it('in form bodies', async () => {
      for (const escape of ESCAPES) {
        const res = await env.api.post('/oauth/interaction/abc', { body: `decision=allow${escape}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
        expectRefused(res, `form ${escape}`);
      }
      expectNoSqlOrStack(logOfTest.lines());
    });

    it('in multipart field values and file names, keeping nothing', async () => {
      // A file name as RFC 7578 lets a client spell any byte of it: filename*=utf-8''…
      const multipart = (disposition: string) =>
        env.api.post('/api/upload', {
          key: alice.apiKey,
          headers: { 'content-type': 'multipart/form-data; boundary=b0undary' },
          body: Buffer.concat([
            Buffer.from(`--b0undary\r\nContent-Disposition: form-data; ${disposition}\r\nContent-Type: image/png\r\n\r\n`),
            pngBytes(300, 3),
            Buffer.from('\r\n--b0undary--\r\n'),
          ]),
        });
      expectRefused(await upload(env, { key: alice.apiKey, bytes: pngBytes(300, 1), fields: { expiry: '1h\u0000' } }), 'field value');
      expectRefused(await multipart(`name="file"; filename*=utf-8''cat%00.png`), 'file name');
      expect(await storedObjects(env)).to.deep.equal([]);
      expectNoSqlOrStack(logOfTest.lines());
    });
  });

  describe('text that cannot be stored: MCP answers 400 with a JSON-RPC error', () => {
    it('in tool arguments, before any tool runs', async () => {
      for (const text of IN_JSON) {
        for (const [name, args] of [['create_folder', { name: `trips${text}` }], ['get_file', { filename: `a${text}.png` }]] as const) {
          const res = await mcp(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } }));
          expect(res.status, `${name} ${JSON.stringify(text)}`).to.equal(400);
          expect(await res.json()).to.deep.equal({ jsonrpc: '2.0', error: { code: -32600, message: `Invalid Request: ${UNSTORABLE_TEXT}` }, id: null });
        }
      }
      expect((await env.api.get('/api/user/folders', { key: bob.apiKey })).body.data).to.deep.equal([]);
      expectNoSqlOrStack(logOfTest.lines());
    });

    it('in its query string', async () => {
      const res = await mcp(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), '/mcp?x=%00');
      expect(res.status).to.equal(400);
      expectNoSqlOrStack(logOfTest.lines());
    });
  });

  describe(`JSON nested deeper than ${MAX_JSON_DEPTH} levels is refused before it is parsed`, () => {
    const TOO_DEEP = `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;
    const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    /** A tools/list whose params nest objects to `depth` levels in all (the message itself is the first). */
    const listNestedTo = (depth: number) =>
      `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":${'{"a":'.repeat(depth - 2)}1${'}'.repeat(depth - 2)}}}`;

    it('on /mcp: 5,000 and 3,000 deep are a JSON-RPC parse error (400, -32700), as malformed JSON is', async () => {
      for (const body of [arrays(5000), arrays(3000), listNestedTo(5000), listNestedTo(MAX_JSON_DEPTH + 1)]) {
        const res = await mcp(body);
        expect(res.status, body.slice(0, 60)).to.equal(400);
        expect(await res.json()).to.deep.equal({ jsonrpc: '2.0', error: { code: -32700, message: `Parse error: ${TOO_DEEP}` }, id: null });
      }
      const malformed = await mcp('{"jsonrpc": "2.0", ');
      expect(malformed.status).to.equal(400);
      expect(((await malformed.json()) as { error: { code: number } }).error.code).to.equal(-32700);
      expect((await mcp(listNestedTo(MAX_JSON_DEPTH))).status).to.equal(200);
      expectNoSqlOrStack(logOfTest.lines());
    });

    it('on REST and OAuth bodies alike', async () => {
      const res = await env.api.post('/api/auth/login', { body: arrays(5000), headers: { 'content-type': 'application/json' } });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({ success: false, error: TOO_DEEP });
      const register = await fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"client_name":${arrays(5000)}}` });
      expect(register.status).to.equal(400);
      expect(await register.json()).to.deep.equal({ error: 'invalid_request', error_description: TOO_DEEP });
      expectNoSqlOrStack(logOfTest.lines());
    });
  });

  describe("a client's mistake is one log line without a stack; stacks are for our own faults", () => {
    it('a request the MCP SDK refuses', async () => {
      const res = await mcp('{"jsonrpc":"2.0"}');
      expect(res.status).to.equal(400);
      const refused = await logOfTest.waitFor((line) => line.msg === 'MCP request refused');
      expect(refused).to.not.have.property('err');
      expect(refused.reason).to.match(/not a valid JSON-RPC message/);
      expectNoSqlOrStack(logOfTest.lines());
    });

    it('a URL upload whose host does not resolve (400 to the client, one line from the worker)', async () => {
      const res = await env.api.post('/api/upload/url', { key: alice.apiKey, json: { imageUrl: 'http://no-such-host.invalid/cat.png' } });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.match(/could not resolve no-such-host\.invalid/);
      const line = await logOfTest.waitFor((l) => l.job === 'url.fetch');
      expect(line).to.include({ msg: 'job refused', status: 400 });
      expect(line).to.not.have.property('err');
      expectNoSqlOrStack(logOfTest.lines());
    });
  });
});
