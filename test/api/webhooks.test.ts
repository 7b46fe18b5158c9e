import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { webhookDeliveries, webhookEndpoints } from '../../shared/db/integrations.schema.js';
import { files } from '../../shared/db/schema.js';
import { newWebhookSecret } from '../../shared/services/webhooks/webhook-signature.js';
import { eventually } from '../helpers/eventually.js';
import { startFakeVision } from '../helpers/fake-vision.js';
import { createFolder } from '../helpers/folders.js';
import { pngBytes } from '../helpers/media.js';
import { freePort } from '../helpers/ports.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { fileRowsOf, upload } from '../helpers/uploads.js';
import { verified, webhookClient, WebhookReceiver } from '../helpers/webhook-receiver.js';

// Managing endpoints, and what each event sends; failures, retries and turning off: webhook-failures.test.ts.

describe('webhooks (Standard Webhooks)', function () {
  this.timeout(60_000);
  let receiver: WebhookReceiver;
  let env: TestEnv;
  before(async () => {
    receiver = await WebhookReceiver.start();
    env = await createTestEnv({ workers: true, env: { URL_FETCH_ALLOWED_ORIGINS: receiver.origin } });
  });
  after(async () => {
    await env?.close();
    await receiver?.close();
  });
  const { addEndpoint, uploadPng, deliveriesOf, endpointOf } = webhookClient(() => env, () => receiver);

  describe('managing endpoints', () => {
    it('creates an endpoint and shows its whsec_ secret in that answer only, stored sealed', async () => {
      const alice = await env.createAccount();
      const created = await addEndpoint(alice, '/created', ['file.deleted', 'file.uploaded', 'file.uploaded'], { description: 'CI' });
      expect(created).to.include({ url: receiver.url('/created'), description: 'CI', enabled: true, disabledReason: null });
      expect(created.events).to.deep.equal(['file.uploaded', 'file.deleted']);
      expect(created.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const listed = await env.api.get('/api/user/webhooks', { key: alice.apiKey });
      const { secret: _secret, ...shown } = created;
      expect(listed.body.data).to.deep.equal([shown]);
      expect(listed.text).to.not.include(created.secret.slice(6));
      const [row] = await env.container.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.id));
      expect(row!.secretSealed).to.not.include(created.secret.slice(6));
      expect(env.container.box.decrypt(row!.secretSealed)).to.equal(created.secret);
    });

    it('refuses private, loopback and link-local addresses (400), other schemes and unknown events', async () => {
      const alice = await env.createAccount();
      for (const url of ['http://127.0.0.1:9/hook', 'http://localhost:9/hook', 'http://10.1.2.3/hook', 'http://[::1]/hook', 'http://169.254.169.254/latest', 'ftp://example.com/hook']) {
        const res = await env.api.post('/api/user/webhooks', { key: alice.apiKey, json: { url, events: ['file.uploaded'] } });
        expect(res.status, url).to.equal(400);
        expect(res.body.success).to.equal(false);
      }
      for (const events of [[], ['file.exploded'], ['webhook.test'], 'file.uploaded']) {
        const res = await env.api.post('/api/user/webhooks', { key: alice.apiKey, json: { url: receiver.url('/x'), events } });
        expect(res.status, JSON.stringify(events)).to.equal(400);
      }
      const endpoint = await addEndpoint(alice, '/patched');
      expect((await env.api.patch(`/api/user/webhooks/${endpoint.id}`, { key: alice.apiKey, json: { url: 'http://192.168.1.1/hook' } })).status).to.equal(400);
      expect((await env.api.patch(`/api/user/webhooks/${endpoint.id}`, { key: alice.apiKey, json: {} })).status).to.equal(400);
      expect((await env.api.get('/api/user/webhooks', { key: alice.apiKey })).body.data).to.have.length(1);
    });

    it('takes the primary key or a session only: an access token, whatever its scopes, gets 403', async () => {
      const alice = await env.createAccount();
      const endpoint = await addEndpoint(alice, '/token-refused');
      const scopes = ['account:read', 'files:read', 'files:write', 'files:delete', 'folders:read', 'folders:write'];
      const token = (await env.api.post('/api/user/tokens', { key: alice.apiKey, json: { name: 'all', scopes } })).body.data.token as string;
      expect((await env.api.post('/api/user/webhooks', { key: token, json: { url: receiver.url('/x'), events: ['file.uploaded'] } })).status).to.equal(403);
      expect((await env.api.get('/api/user/webhooks', { key: token })).status).to.equal(403);
      expect((await env.api.post(`/api/user/webhooks/${endpoint.id}/rotate-secret`, { key: token })).status).to.equal(403);
      expect((await env.api.get(`/api/user/webhooks/${endpoint.id}/deliveries`, { headers: { authorization: `Bearer ${token}` } })).status).to.equal(403);
    });

    it('holds at most 10 endpoints per account', async () => {
      const alice = await env.createAccount();
      for (let i = 0; i < 10; i++) await addEndpoint(alice, `/many/${i}`);
      const res = await env.api.post('/api/user/webhooks', { key: alice.apiKey, json: { url: receiver.url('/many/10'), events: ['file.uploaded'] } });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.match(/at most 10/);
    });

    it('answers 404 for another account’s endpoint, and changes nothing', async () => {
      const alice = await env.createAccount();
      const mallory = await env.createAccount();
      const endpoint = await addEndpoint(alice, '/alices');
      const base = `/api/user/webhooks/${endpoint.id}`;
      const key = mallory.apiKey;
      expect((await env.api.patch(base, { key, json: { enabled: false } })).status).to.equal(404);
      expect((await env.api.delete(base, { key })).status).to.equal(404);
      expect((await env.api.post(`${base}/rotate-secret`, { key })).status).to.equal(404);
      expect((await env.api.post(`${base}/test`, { key })).status).to.equal(404);
      expect((await env.api.get(`${base}/deliveries`, { key })).status).to.equal(404);
      expect((await env.api.get('/api/user/webhooks/not-an-id/deliveries', { key })).status).to.equal(404);
      expect(await endpointOf(alice, endpoint.id)).to.include({ enabled: true });
      expect(receiver.to('/alices')).to.have.length(0);
    });

    it('turns an endpoint off and on (PATCH), and deletes it', async () => {
      const alice = await env.createAccount();
      const endpoint = await addEndpoint(alice, '/switched');
      const off = await env.api.patch(`/api/user/webhooks/${endpoint.id}`, { key: alice.apiKey, json: { enabled: false, description: 'paused' } });
      expect(off.body.data).to.include({ enabled: false, description: 'paused', disabledReason: null });
      await uploadPng(alice, 1);
      expect(await deliveriesOf(alice, endpoint)).to.have.length(0);
      expect((await env.api.post(`/api/user/webhooks/${endpoint.id}/test`, { key: alice.apiKey })).status).to.equal(409);

      await env.api.patch(`/api/user/webhooks/${endpoint.id}`, { key: alice.apiKey, json: { enabled: true } });
      await uploadPng(alice, 2);
      await receiver.waitFor('/switched');

      expect((await env.api.delete(`/api/user/webhooks/${endpoint.id}`, { key: alice.apiKey })).body).to.deep.equal({ success: true, message: 'Webhook endpoint deleted' });
      expect((await env.api.get(`/api/user/webhooks/${endpoint.id}/deliveries`, { key: alice.apiKey })).status).to.equal(404);
      expect((await env.api.get('/api/user/webhooks', { key: alice.apiKey })).body.data).to.deep.equal([]);
    });
  });

  describe('delivery', () => {
    it('sends file.uploaded within 2 s of the upload’s answer, signed so that standardwebhooks verifies it', async () => {
      const alice = await env.createAccount();
      const endpoint = await addEndpoint(alice, '/uploads');
      const uploaded = await uploadPng(alice, 3);
      const answeredAt = Date.now();
      const [hook] = await receiver.waitFor('/uploads');
      expect(hook!.at - answeredAt).to.be.below(2000);
      const event = verified(hook!, endpoint.secret);
      expect(event.type).to.equal('file.uploaded');
      expect(hook!.headers['webhook-id']).to.match(/^msg_[0-9a-f]{32}$/);
      expect(Math.abs(Number(hook!.headers['webhook-timestamp']) - Date.now() / 1000)).to.be.below(10);
      expect(hook!.headers['content-type']).to.equal('application/json');
      // The file as the dashboard lists it (its thumbnail may have been made since).
      const listed = (await env.api.get('/api/user/dashboard', { key: alice.apiKey })).body.data.uploads[0];
      const { thumbnailUrl: _t, previewUrl: _p, ...record } = listed;
      expect(event.data).to.deep.include(record);
      expect(Object.keys(event.data).sort()).to.deep.equal(Object.keys(listed).sort());
      expect(event.data.filename).to.equal(uploaded.filename);
      expect(() => verified(hook!, newWebhookSecret())).to.throw();
      expect(() => verified({ ...hook!, body: hook!.body.replace(uploaded.filename, 'other.png') }, endpoint.secret)).to.throw();
    });

    it('sends file.updated for rename, move, batch move, privacy and replace, file.deleted for both delete routes, nothing unsubscribed', async () => {
      const alice = await env.createAccount();
      const endpoint = await addEndpoint(alice, '/changes', ['file.updated', 'file.deleted']);
      const [a, b, c] = [await uploadPng(alice, 4), await uploadPng(alice, 5), await uploadPng(alice, 6)];
      const folderId = await createFolder(env, alice, 'inbox');
      const key = alice.apiKey;
      expect((await env.api.put(`/api/user/images/${a.filename}/rename`, { key, json: { newFilename: 'renamed.png' } })).status).to.equal(200);
      expect((await env.api.patch('/api/user/images/renamed.png/move', { key, json: { folderId } })).status).to.equal(200);
      expect((await env.api.patch('/api/user/images/move', { key, json: { filenames: [b.filename, c.filename, 'missing.png'], folderId } })).status).to.equal(200);
      expect((await env.api.patch(`/api/user/images/${b.filename}/privacy`, { key, json: { isPrivate: true } })).status).to.equal(200);
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(pngBytes(2500, 40))]), 'new.png');
      expect((await env.api.patch(`/api/user/images/${b.filename}/replace`, { key, body: form })).status).to.equal(200);
      expect((await env.api.delete(`/api/user/images/${c.filename}`, { key })).status).to.equal(200);
      expect((await env.api.get(`/api/delete/renamed.png?apiKey=${key}`)).status).to.equal(200);

      const hooks = await receiver.waitFor('/changes', 8);
      const events = hooks.map((h) => verified(h, endpoint.secret));
      const seen = events.map((e) => `${e.type} ${e.data.filename} ${e.data.folderId === folderId ? 'inbox' : 'root'}${e.data.isPrivate ? ' private' : ''}${e.data.updatedAt ? ' replaced' : ''}`);
      expect(seen.sort()).to.deep.equal(
        [
          'file.updated renamed.png root',
          'file.updated renamed.png inbox',
          `file.updated ${b.filename} inbox`,
          `file.updated ${c.filename} inbox`,
          `file.updated ${b.filename} inbox private`,
          `file.updated ${b.filename} inbox private replaced`,
          `file.deleted ${c.filename} inbox`,
          'file.deleted renamed.png inbox',
        ].sort(),
      );
      expect(new Set(hooks.map((h) => h.headers['webhook-id'])).size).to.equal(8);
      expect((await deliveriesOf(alice, endpoint)).map((d) => d.eventType)).to.not.include('file.uploaded');
    });

    it('sends file.expired when an expiring file’s time has come', async () => {
      const alice = await env.createAccount();
      const endpoint = await addEndpoint(alice, '/expired', ['file.expired', 'file.deleted']);
      const expiring = await uploadPng(alice, 7, { expiry: '1h' });
      const [row] = await fileRowsOf(env, alice.id);
      await env.container.db.update(files).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(files.id, row!.id));
      expect(await env.container.services.files.sweepExpired()).to.be.at.least(1);
      const [hook] = await receiver.waitFor('/expired');
      expect(verified(hook!, endpoint.secret)).to.deep.include({ type: 'file.expired' });
      expect(verified(hook!, endpoint.secret).data).to.include({ filename: expiring.filename, expiry: '1h' });
    });

    it('sends folder.shared once per album, and drop.received with the drop link and its file', async () => {
      const alice = await env.createAccount();
      const endpoint = await addEndpoint(alice, '/folders', ['folder.shared', 'drop.received']);
      const folderId = await createFolder(env, alice, 'holiday');
      const shared = await env.api.post(`/api/user/folders/${folderId}/share`, { key: alice.apiKey });
      await env.api.post(`/api/user/folders/${folderId}/share`, { key: alice.apiKey });
      const [hook] = await receiver.waitFor('/folders');
      expect(verified(hook!, endpoint.secret)).to.deep.include({ type: 'folder.shared', data: { id: folderId, name: 'holiday', ...shared.body.data } });

      const link = (await env.api.post('/api/user/drop-links', { key: alice.apiKey, json: { folderId } })).body.data;
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(pngBytes(1200, 8))]), 'scan.png');
      const dropped = await fetch(`${env.web.url}/drop/${link.url.slice(link.url.lastIndexOf('/') + 1)}`, { method: 'POST', body: form, headers: { accept: 'application/json' } });
      expect(dropped.status).to.equal(200);
      const hooks = await receiver.waitFor('/folders', 2);
      const drop = verified(hooks[1]!, endpoint.secret);
      expect(drop.type).to.equal('drop.received');
      expect(drop.data).to.include({ id: link.id, status: 'received', folderId });
      expect(drop.data.file).to.include({ originalName: 'scan.png', folderId, source: 'drop' });
      expect((await deliveriesOf(alice, endpoint)).map((d) => d.eventType).sort()).to.deep.equal(['drop.received', 'folder.shared']);
    });

    it('rotate-secret: the new secret alone signs every later delivery, at once', async () => {
      const alice = await env.createAccount();
      const endpoint = await addEndpoint(alice, '/rotating');
      await uploadPng(alice, 14);
      const [first] = await receiver.waitFor('/rotating');
      expect(verified(first!, endpoint.secret).type).to.equal('file.uploaded');

      const rotated = await env.api.post(`/api/user/webhooks/${endpoint.id}/rotate-secret`, { key: alice.apiKey });
      expect(rotated.status).to.equal(200);
      const secret = rotated.body.data.secret as string;
      expect(secret).to.match(/^whsec_/).and.not.equal(endpoint.secret);
      expect(rotated.body.data).to.include({ id: endpoint.id, enabled: true });
      expect((await env.api.get('/api/user/webhooks', { key: alice.apiKey })).text).to.not.include(secret.slice(6));

      await uploadPng(alice, 15);
      const [, second] = await receiver.waitFor('/rotating', 2);
      expect(second!.headers['webhook-signature']).to.match(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(verified(second!, secret).type).to.equal('file.uploaded');
      expect(() => verified(second!, endpoint.secret)).to.throw();
    });

    it('POST /:id/test sends webhook.test; GET /:id/deliveries lists the last deliveries, newest first', async () => {
      const alice = await env.createAccount();
      const endpoint = await addEndpoint(alice, '/tested', ['folder.shared']);
      const test = await env.api.post(`/api/user/webhooks/${endpoint.id}/test`, { key: alice.apiKey });
      expect(test.status, test.text).to.equal(200);
      expect(test.body.data).to.include({ eventType: 'webhook.test', status: 'pending', attempts: 0 });
      const [hook] = await receiver.waitFor('/tested');
      expect(hook!.headers['webhook-id']).to.equal(test.body.data.id);
      expect(verified(hook!, endpoint.secret)).to.deep.include({ type: 'webhook.test', data: { endpointId: endpoint.id } });

      const again = await env.api.post(`/api/user/webhooks/${endpoint.id}/test`, { key: alice.apiKey });
      await receiver.waitFor('/tested', 2);
      await eventually(async () => (await deliveriesOf(alice, endpoint)).every((d) => d.status === 'delivered'));
      const listed = await deliveriesOf(alice, endpoint);
      expect(listed.map((d) => d.id)).to.deep.equal([again.body.data.id, test.body.data.id]);
      expect(listed[0]).to.include({ eventType: 'webhook.test', status: 'delivered', attempts: 1, lastStatusCode: 204, lastError: null, nextAttemptAt: null });
      expect(Object.keys(listed[0]!).sort()).to.deep.equal(['attempts', 'createdAt', 'durationMs', 'eventType', 'id', 'lastError', 'lastStatusCode', 'nextAttemptAt', 'status']);
    });

    it('records nothing for an account without endpoints', async () => {
      const bob = await env.createAccount();
      const before = await env.container.db.$count(webhookDeliveries);
      await uploadPng(bob, 16);
      expect(await env.container.db.$count(webhookDeliveries)).to.equal(before);
    });

  });

  describe('file.quarantined', () => {
    let moderated: TestEnv;
    let vision: Awaited<ReturnType<typeof startFakeVision>>;
    before(async () => {
      const port = await freePort();
      vision = await startFakeVision(port);
      vision.state.answer = 'hard_block';
      moderated = await createTestEnv({ workers: true, env: { URL_FETCH_ALLOWED_ORIGINS: receiver.origin, MODERATION_ENABLED: 'true', VISION_URL: `http://127.0.0.1:${port}` } });
    });
    after(async () => {
      await moderated?.close();
      await vision?.close();
    });

    it('is sent when moderation blocks a file, with the file as now listed (blocked)', async () => {
      const alice = await moderated.createAccount();
      const created = await moderated.api.post('/api/user/webhooks', { key: alice.apiKey, json: { url: receiver.url('/quarantine'), events: ['file.quarantined'] } });
      const res = await upload(moderated, { key: alice.apiKey, bytes: pngBytes(1500, 17), json: true });
      const [hook] = await receiver.waitFor('/quarantine');
      const event = verified(hook!, created.body.data.secret);
      expect(event.type).to.equal('file.quarantined');
      expect(event.data).to.include({ filename: res.body.data.filename, moderationState: 'blocked' });
    });
  });
});
