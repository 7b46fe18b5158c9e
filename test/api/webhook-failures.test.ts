import { expect } from 'chai';
import { newWebhookSecret } from '../../shared/services/webhooks/webhook-signature.js';
import { eventually } from '../helpers/eventually.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { verified, webhookClient, WebhookReceiver } from '../helpers/webhook-receiver.js';

describe('webhooks: failed deliveries, retries and endpoints turned off', function () {
  this.timeout(60_000);
  let receiver: WebhookReceiver;
  let env: TestEnv;
  before(async () => {
    receiver = await WebhookReceiver.start();
    // Retries 50 ms apart, enough of them for an endpoint to fail 20 times in a row.
    env = await createTestEnv({ workers: true, env: { URL_FETCH_ALLOWED_ORIGINS: receiver.origin, WEBHOOK_RETRY_DELAYS: Array(25).fill('0.05').join(',') } });
  });
  after(async () => {
    await env?.close();
    await receiver?.close();
  });
  const { addEndpoint, uploadPng, deliveriesOf, endpointOf } = webhookClient(() => env, () => receiver);

  it('retries a receiver that answers 500, with the same webhook-id, until it takes the event', async () => {
    const alice = await env.createAccount();
    receiver.on('/flaky', (_hook, nth) => (nth < 3 ? 500 : 200));
    const endpoint = await addEndpoint(alice, '/flaky');
    await uploadPng(alice, 9);
    const hooks = await receiver.waitFor('/flaky', 3);
    expect(new Set(hooks.map((h) => h.headers['webhook-id'])).size).to.equal(1);
    for (const hook of hooks) expect(verified(hook, endpoint.secret).type).to.equal('file.uploaded');
    expect(new Set(hooks.map((h) => h.body)).size).to.equal(1);
    await eventually(async () => (await deliveriesOf(alice, endpoint))[0]?.status === 'delivered');
    const [delivery] = await deliveriesOf(alice, endpoint);
    expect(delivery).to.include({ id: hooks[0]!.headers['webhook-id'], eventType: 'file.uploaded', attempts: 3, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
    expect(delivery!.durationMs).to.be.a('number');
    expect(await endpointOf(alice, endpoint.id)).to.include({ enabled: true });
  });

  it('turns the endpoint off when the receiver answers 410, and tells the owner', async () => {
    const alice = await env.createAccount();
    receiver.on('/gone', () => 410);
    const endpoint = await addEndpoint(alice, '/gone');
    await uploadPng(alice, 10);
    await receiver.waitFor('/gone');
    await eventually(async () => !(await endpointOf(alice, endpoint.id)).enabled);
    expect(await endpointOf(alice, endpoint.id)).to.include({ enabled: false, disabledReason: 'gone' });
    expect(await deliveriesOf(alice, endpoint)).to.have.length(1);
    expect((await deliveriesOf(alice, endpoint))[0]).to.include({ status: 'failed', attempts: 1, lastStatusCode: 410 });
    const { notifications } = (await env.api.get('/api/user/notifications', { key: alice.apiKey })).body.data;
    expect(notifications[0]).to.include({ type: 'webhook', title: 'A webhook endpoint was turned off' });
    expect(notifications[0].message).to.include('410');
    // Nothing more is recorded for it.
    await uploadPng(alice, 11);
    expect(await deliveriesOf(alice, endpoint)).to.have.length(1);
  });

  it('turns the endpoint off after 20 failed attempts in a row, and tells the owner; a 3xx is a failure, never followed', async () => {
    const alice = await env.createAccount();
    receiver.on('/moved', () => 302);
    const endpoint = await addEndpoint(alice, '/moved');
    await uploadPng(alice, 12);
    await eventually(async () => !(await endpointOf(alice, endpoint.id)).enabled, 30_000);
    expect(await endpointOf(alice, endpoint.id)).to.include({ enabled: false, disabledReason: 'failing' });
    expect(receiver.to('/moved')).to.have.length(20);
    expect(new Set(receiver.to('/moved').map((h) => h.headers['webhook-id'])).size).to.equal(1);
    const [delivery] = await deliveriesOf(alice, endpoint);
    expect(delivery).to.include({ status: 'failed', attempts: 20, lastStatusCode: 302, nextAttemptAt: null });
    expect(delivery!.lastError).to.match(/redirects are not followed/);
    const { notifications } = (await env.api.get('/api/user/notifications', { key: alice.apiKey })).body.data;
    expect(notifications[0]).to.include({ type: 'webhook' });
    expect(notifications[0].message).to.include('20 deliveries in a row failed');

    // Turned on again, it starts afresh.
    receiver.on('/moved', () => 200);
    await env.api.patch(`/api/user/webhooks/${endpoint.id}`, { key: alice.apiKey, json: { enabled: true } });
    await env.api.post(`/api/user/webhooks/${endpoint.id}/test`, { key: alice.apiKey });
    await receiver.waitFor('/moved', 21);
    expect(await endpointOf(alice, endpoint.id)).to.include({ enabled: true, disabledReason: null });
  });

  it('refuses a private address again at delivery time (a name may resolve elsewhere later)', async () => {
    const alice = await env.createAccount();
    // Stored as if it had passed at creation; 127.0.0.2 is not an allowed origin.
    const privateUrl = receiver.url('/private').replace('127.0.0.1', '127.0.0.2');
    const created = await env.container.repositories.webhookEndpoints.create(
      alice.id,
      { url: privateUrl, events: ['file.uploaded'], description: '', secretSealed: env.container.box.encrypt(newWebhookSecret()) },
      10,
    );
    expect(created.ok).to.equal(true);
    await uploadPng(alice, 13);
    const endpoint = { id: created.ok ? created.value.id : '' };
    await eventually(async () => (await deliveriesOf(alice, endpoint))[0]?.attempts === 1);
    const [delivery] = await deliveriesOf(alice, endpoint);
    expect(delivery).to.include({ lastStatusCode: null });
    expect(delivery!.lastError).to.match(/non-public address/);
  });

  it('a sweep queues a pending delivery whose job was lost, and registers itself every minute', async () => {
    const alice = await env.createAccount();
    const endpoint = await addEndpoint(alice, '/lost', ['folder.shared']);
    // A delivery recorded while Redis could not take its job: its row is all there is.
    const ids = await env.container.repositories.webhookDeliveries.record(alice.id, 'folder.shared', [JSON.stringify({ type: 'folder.shared', timestamp: new Date().toISOString(), data: {} })]);
    expect(ids).to.have.length(1);
    expect(await deliveriesOf(alice, endpoint)).to.have.length(1);
    const result = await env.container.services.webhookDeliveries.requeueLost(Date.now() + 5 * 60_000);
    expect(result.requeued).to.be.at.least(1);
    const [hook] = await receiver.waitFor('/lost');
    expect(hook!.headers['webhook-id']).to.equal(ids[0]);
    const schedulers = await env.container.jobs.queue('webhooks').getJobSchedulers();
    expect(schedulers.map((s) => [s.key, s.name, s.every])).to.deep.include(['webhooks-sweep', 'webhooks.sweep', 60_000]);
  });
});
