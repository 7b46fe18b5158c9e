import { expect } from 'chai';
import { pngBytes } from '../helpers/media.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { getWithHost, upload } from '../helpers/uploads.js';

/** The value of one series in Prometheus' text format, or undefined when it is not there. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const PING_COUNT = 'hfs_http_request_duration_seconds_count{method="GET",route="/api/ping",status="200"}';
const HOSTED_404 = 'hfs_http_request_duration_seconds_count{method="GET",route="/u/:username/:filename",status="404"}';

describe('GET /metrics', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv();
  });
  after(() => env.close());

  it('answers in the Prometheus text format with the process metrics', async () => {
    const res = await env.api.get('/metrics');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    expect(sample(res.text, 'process_cpu_seconds_total')).to.be.greaterThan(0);
    expect(res.text).to.match(/^nodejs_heap_size_used_bytes \d+/m);
  });

  it('counts requests under the route pattern, never the raw path', async () => {
    const before = sample((await env.api.get('/metrics')).text, PING_COUNT) ?? 0;
    await env.api.get('/api/ping');
    await env.api.get('/api/ping');
    await env.api.get('/u/nobody/secret-name.png');
    const text = (await env.api.get('/metrics')).text;
    expect(sample(text, PING_COUNT)).to.equal(before + 2);
    expect(sample(text, HOSTED_404)).to.be.at.least(1);
    expect(text).not.to.include('secret-name');
  });

  it('shows how many jobs wait in each queue', async () => {
    const waiting = (text: string) => sample(text, 'hfs_queue_jobs{queue="objects",state="waiting"}');
    expect(waiting((await env.api.get('/metrics')).text)).to.equal(0);
    // No workers run in this environment, so the job stays where it was put.
    await env.container.jobs.add('object.delete', { key: 'objects/metrics-test' });
    const text = (await env.api.get('/metrics')).text;
    expect(waiting(text)).to.equal(1);
    expect(sample(text, 'hfs_queue_jobs{queue="moderation",state="failed"}')).to.equal(0);
  });

  it('shows the bytes of hot files this process holds in memory', async () => {
    const before = sample((await env.api.get('/metrics')).text, 'hfs_file_body_cache_bytes');
    const alice = await env.createAccount();
    const bytes = pngBytes(12_000, 7);
    const res = await upload(env, { key: alice.apiKey, bytes, json: true });
    expect((await getWithHost(res.body.data.url)).status).to.equal(200);
    expect(sample((await env.api.get('/metrics')).text, 'hfs_file_body_cache_bytes')).to.equal(before! + bytes.length);
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const token = 'metrics-token-0123456789';
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ env: { METRICS_TOKEN: token } });
  });
  after(() => env.close());

  it('refuses a request without the bearer token, or with another, with 401 and the error body', async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: token }];
    for (const headers of attempts) {
      const res = await env.api.get('/metrics', { headers });
      expect(res.status).to.equal(401);
      expect(res.body).to.deep.equal({ success: false, error: 'A bearer token is required for metrics' });
      expect(res.headers.get('www-authenticate')).to.equal('Bearer');
    }
  });

  it('answers with the token', async () => {
    const res = await env.api.get('/metrics', { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).to.equal(200);
    expect(sample(res.text, 'process_cpu_seconds_total')).to.be.greaterThan(0);
  });
});
