import { rm } from 'node:fs/promises';
import { expect } from 'chai';
import { createLogger } from '../../shared/logger.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';

describe('error handling', () => {
  let env: TestEnv;
  let apiKey: string;
  before(async () => {
    env = await createTestEnv();
    ({ apiKey } = await env.createAccount());
  });
  after(() => env.close());

  it('answers 404 with the error body for an unknown route', async () => {
    const res = await env.api.get('/api/no-such-route');
    expect(res.status).to.equal(404);
    expect(res.body).to.deep.equal({ success: false, error: 'Route not found' });
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await env.api.post('/api/user/regenerate-api-key', {
      key: apiKey,
      body: '{"broken": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({ success: false, error: 'Malformed JSON body' });
  });

  it('gives every response a request id', async () => {
    const res = await env.api.get('/api/ping');
    expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    const echoed = await env.api.get('/api/ping', { headers: { 'x-request-id': 'trace-abc-123' } });
    expect(echoed.headers.get('x-request-id')).to.equal('trace-abc-123');
  });

  it('answers an internal failure with a generic 500 and no stack trace, and logs it with the request id', async () => {
    // A database that went away is a real internal failure, not a client error.
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger('info', 'hfs', { write: (line: string) => void lines.push(JSON.parse(line)) });
    const other = await createTestEnv({ logger });
    try {
      const { apiKey: key } = await other.createAccount();
      await other.container.database.close();
      const res = await other.api.get('/api/auth/me', { key });
      expect(res.status).to.equal(500);
      expect(res.body.success).to.equal(false);
      expect(res.body.error).to.equal('Internal server error');
      expect(res.body.requestId).to.equal(res.headers.get('x-request-id'));
      expect(res.text).not.to.match(/at .*\.(ts|js):\d+/);
      // The full error stays in the log, where the id in the answer finds it and the request's own line.
      const ofRequest = lines.filter((line) => line.reqId === res.body.requestId);
      expect(ofRequest.map((line) => line.msg)).to.deep.equal(['unhandled error', 'request']);
      expect(ofRequest[0]!.err).to.have.property('stack');
      expect(ofRequest[1]).to.include({ method: 'GET', path: '/api/auth/me', status: 500 });
    } finally {
      // Its database is closed, so close() cannot run whole: stop the rest and remove its data dir.
      await other.web.close();
      await other.container.redis.quit();
      await rm(other.dataDir, { recursive: true, force: true });
    }
  });
});
