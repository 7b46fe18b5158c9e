import { expect } from 'chai';
import { once } from 'node:events';
import { request } from 'node:http';
import type { Socket } from 'node:net';
import pg from 'pg';
import { and, eq } from 'drizzle-orm';
import { accounts, notifications } from '../../shared/db/schema.js';
import { NotificationRepository } from '../../shared/repositories/notification.repository.js';
import { eventually } from '../helpers/eventually.js';
import { openSse } from '../helpers/sse.js';
import { createTestEnv, startSecondWebProcess, type TestEnv } from '../helpers/test-env.js';
import { needsPostgres } from '../helpers/engines.js';

const note = (title: string) => ({ type: 'system', title, message: `${title} body`, data: { link: '/x', linkText: 'Open' } });

describe('notifications', () => {
  let env: TestEnv;
  let other: Awaited<ReturnType<typeof startSecondWebProcess>>;

  before(async () => {
    env = await createTestEnv({ workers: true, env: { SSE_HEARTBEAT_MS: '200' } });
    // A second web process on the same database and Redis: notifications it creates must reach
    // streams open on the first.
    other = await startSecondWebProcess(env);
  });
  after(async () => {
    await other.close();
    await env.close();
  });

  const stream = (key: string, headers: Record<string, string> = {}) =>
    openSse(`${env.web.url}/api/user/notifications/stream`, { 'x-api-key': key, ...headers });

  /** Stream requests the web app has finished handling (every status), from its request metrics. */
  const streamRequestsHandled = async () =>
    (await (await fetch(`${env.web.url}/metrics`)).text())
      .split('\n')
      .filter((line) => line.startsWith('hfs_http_request_duration_seconds_count{') && line.includes('route="/api/user/notifications/stream"'))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);

  describe('GET /api/user/notifications and POST …/read', () => {
    it('lists the 50 most recent, newest first, with the unread count', async () => {
      const alice = await env.createAccount();
      for (let i = 1; i <= 55; i++) await env.container.services.notifications.notify(alice.id, note(`n${i}`));
      const res = await env.api.get('/api/user/notifications', { key: alice.apiKey });
      expect(res.status).to.equal(200);
      expect(res.body.data.unreadCount).to.equal(55);
      const list = res.body.data.notifications;
      expect(list).to.have.length(50);
      expect(list[0].title).to.equal('n55');
      expect(list[0]).to.have.all.keys('id', 'userId', 'type', 'title', 'message', 'read', 'data', 'broadcastId', 'timestamp');
      expect(list[0]).to.include({ userId: alice.id, type: 'system', read: false, broadcastId: null });
      expect(list[0].data).to.deep.equal({ link: '/x', linkText: 'Open' });
    });

    it('marks one read; another account\'s or an unknown id is 404 and changes nothing', async () => {
      const alice = await env.createAccount();
      const bob = await env.createAccount();
      const mine = await env.container.services.notifications.notify(alice.id, note('mine'));
      const bobs = await env.container.services.notifications.notify(bob.id, note('bobs'));
      const res = await env.api.post('/api/user/notifications/read', { key: alice.apiKey, json: { notificationId: mine.id } });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ success: true });
      expect((await env.api.get('/api/user/notifications', { key: alice.apiKey })).body.data.unreadCount).to.equal(0);

      expect((await env.api.post('/api/user/notifications/read', { key: alice.apiKey, json: { notificationId: bobs.id } })).status).to.equal(404);
      expect((await env.api.post('/api/user/notifications/read', { key: alice.apiKey, json: { notificationId: 'nope' } })).status).to.equal(404);
      expect((await env.api.post('/api/user/notifications/read', { key: alice.apiKey, json: {} })).status).to.equal(400);
      const [row] = await env.container.db.select().from(notifications).where(eq(notifications.id, bobs.id));
      expect(row!.read).to.equal(false);
    });
  });

  describe('GET /api/user/notifications/stream', () => {
    it('delivers a notification created by another web process, with unread counts and event ids', async () => {
      const alice = await env.createAccount();
      const sse = await stream(alice.apiKey);
      expect(sse.status).to.equal(200);
      const first = await sse.next((e) => e.event === 'unread');
      expect(JSON.parse(first.data!)).to.deep.equal({ unreadCount: 0 });

      const created = await other.container.services.notifications.notify(alice.id, note('hello'));
      const event = await sse.next((e) => e.event === 'notification');
      expect(JSON.parse(event.data!)).to.deep.equal(created);
      expect(event.id).to.match(/^\d+$/);
      const unread = await sse.next((e) => e.event === 'unread');
      expect(JSON.parse(unread.data!)).to.deep.equal({ unreadCount: 1 });
      expect(unread.id).to.equal(event.id);

      await env.api.post('/api/user/notifications/read', { key: alice.apiKey, json: { notificationId: created.id } });
      expect(JSON.parse((await sse.next((e) => e.event === 'unread')).data!)).to.deep.equal({ unreadCount: 0 });
      sse.close();
    });

    it('never shows another account\'s notifications', async () => {
      const alice = await env.createAccount();
      const bob = await env.createAccount();
      const sse = await stream(alice.apiKey);
      await sse.next((e) => e.event === 'unread');
      await env.container.services.notifications.notify(bob.id, note('for bob'));
      await env.container.services.notifications.notify(alice.id, note('for alice'));
      const event = await sse.next((e) => e.event === 'notification');
      expect(JSON.parse(event.data!).title).to.equal('for alice');
      expect(sse.events.filter((e) => e.event === 'notification')).to.have.length(1);
      sse.close();
    });

    it('replays what was missed after Last-Event-ID, in order', async () => {
      const alice = await env.createAccount();
      const sse = await stream(alice.apiKey);
      await env.container.services.notifications.notify(alice.id, note('seen'));
      const seen = await sse.next((e) => e.event === 'notification');
      sse.close();
      await env.container.services.notifications.notify(alice.id, note('missed 1'));
      await env.container.services.notifications.notify(alice.id, note('missed 2'));

      const again = await stream(alice.apiKey, { 'last-event-id': seen.id! });
      const a = await again.next((e) => e.event === 'notification');
      const b = await again.next((e) => e.event === 'notification');
      expect([JSON.parse(a.data!).title, JSON.parse(b.data!).title]).to.deep.equal(['missed 1', 'missed 2']);
      expect(Number(b.id)).to.be.greaterThan(Number(a.id));
      expect(JSON.parse((await again.next((e) => e.event === 'unread')).data!)).to.deep.equal({ unreadCount: 3 });
      await env.container.services.notifications.notify(alice.id, note('live'));
      expect(JSON.parse((await again.next((e) => e.event === 'notification')).data!).title).to.equal('live');
      expect(again.events.filter((e) => e.event === 'notification').map((e) => JSON.parse(e.data!).title)).to.deep.equal(['missed 1', 'missed 2', 'live']);
      again.close();
    });

    it('treats a Last-Event-ID from the future as the present, so live events still arrive', async () => {
      const alice = await env.createAccount();
      const sse = await stream(alice.apiKey, { 'last-event-id': '999999999999' });
      await sse.next((e) => e.event === 'unread');
      await env.container.services.notifications.notify(alice.id, note('after a reset'));
      expect(JSON.parse((await sse.next((e) => e.event === 'notification')).data!).title).to.equal('after a reset');
      sse.close();
    });

    // A second connection holds a table the stream's setup reads (the key lookup, the start
    // sequence), so the client is certain to leave while the server is still waiting on it.
    for (const table of ['accounts', 'notifications']) {
      it(`frees everything of a client that leaves while its stream waits on ${table}`, async function () {
        needsPostgres(this, env.databaseUrl); // PGlite has one connection: nothing can hold a lock beside it
        const alice = await env.createAccount();
        const handledBefore = await streamRequestsHandled();
        const locker = new pg.Client({ connectionString: env.databaseUrl });
        await locker.connect();
        try {
          await locker.query('begin');
          await locker.query(`lock table ${table} in access exclusive mode`);
          const accepted = once(env.web.server, 'connection') as Promise<[Socket]>;
          const { port } = new URL(env.web.url);
          const req = request({ host: '127.0.0.1', port, path: '/api/user/notifications/stream', headers: { 'x-api-key': alice.apiKey } });
          req.on('error', () => undefined);
          req.end();
          const [serverSocket] = await accepted;
          // The server is inside the stream's setup once a query of it queues behind the lock.
          await eventually(async () => (await locker.query('select 1 from pg_locks where relation = to_regclass($1) and not granted', [table])).rowCount! > 0);
          const left = once(serverSocket, 'close');
          req.destroy();
          await left;
          await locker.query('commit');
        } finally {
          await locker.end();
        }
        // The request is recorded once the stream's setup has run to its end.
        await eventually(async () => (await streamRequestsHandled()) > handledBefore);
        expect(env.web.hub.listenerCount(alice.id)).to.equal(0);
      });
    }

    it('ends open streams when the web process shuts down, so it can stop', async () => {
      const third = await startSecondWebProcess(env);
      const alice = await env.createAccount();
      const sse = await openSse(`${third.web.url}/api/user/notifications/stream`, { 'x-api-key': alice.apiKey });
      await sse.next((e) => e.event === 'unread');
      const closed = await Promise.race([
        third.close().then(() => 'closed'),
        new Promise((resolve) => setTimeout(() => resolve('still open'), 5000)),
      ]);
      expect(closed).to.equal('closed');
      sse.close();
    });

    it('sends heartbeat comments and frees its listener when the client goes', async () => {
      const alice = await env.createAccount();
      const sse = await stream(alice.apiKey);
      await sse.next((e) => e.event === 'unread');
      expect(env.web.hub.listenerCount(alice.id)).to.equal(1);
      await eventually(async () => sse.comments.includes('heartbeat'), 3000);
      sse.close();
      await eventually(async () => env.web.hub.listenerCount(alice.id) === 0, 3000);
    });

    it('needs the account\'s credentials', async () => {
      const sse = await openSse(`${env.web.url}/api/user/notifications/stream`);
      expect(sse.status).to.equal(401);
      sse.close();
    });
  });

  describe('broadcasts', () => {
    it('reach every account through the notify job, tied by broadcastId, and are safe to retry', async () => {
      const accounts = await Promise.all([1, 2, 3].map(() => env.createAccount()));
      await env.container.services.notifications.notify(accounts[1]!.id, note('unread before'));
      // Streams of two accounts, one on each web process: each hears its own copy, as its list shows it.
      const streams = [await stream(accounts[0]!.apiKey), await openSse(`${other.web.url}/api/user/notifications/stream`, { 'x-api-key': accounts[1]!.apiKey })];
      for (const sse of streams) await sse.next((e) => e.event === 'unread');
      const { broadcastId } = await env.container.services.notifications.broadcast(note('to everyone'));
      for (const [i, sse] of streams.entries()) {
        const event = await sse.next((e) => e.event === 'notification');
        const unread = await sse.next((e) => e.event === 'unread');
        const listed = (await env.api.get('/api/user/notifications', { key: accounts[i]!.apiKey })).body.data;
        expect(JSON.parse(event.data!)).to.deep.equal(listed.notifications[0]).and.include({ title: 'to everyone', broadcastId, userId: accounts[i]!.id });
        expect(JSON.parse(unread.data!)).to.deep.equal({ unreadCount: listed.unreadCount });
        expect(listed.unreadCount).to.equal(i + 1);
        sse.close();
      }

      const count = async () =>
        (await env.container.db.select().from(notifications).where(eq(notifications.broadcastId, broadcastId))).length;
      await eventually(async () => (await count()) > 0);
      const written = await count();
      for (const account of accounts) {
        const rows = await env.container.db
          .select()
          .from(notifications)
          .where(and(eq(notifications.broadcastId, broadcastId), eq(notifications.accountId, account.id)));
        expect(rows).to.have.length(1);
      }
      // A retried job writes nothing twice.
      expect(await env.container.services.notifications.runBroadcast(broadcastId, { ...note('to everyone'), data: {} })).to.equal(0);
      expect(await count()).to.equal(written);
    });

    it('are written a batch of accounts at a time, each row once, with its account’s unread count', async () => {
      const [alice, bob] = await Promise.all([env.createAccount(), env.createAccount()]);
      for (const title of ['one', 'two']) await env.container.services.notifications.notify(bob.id, note(title));
      const read = await env.container.services.notifications.notify(alice.id, note('read'));
      await env.api.post('/api/user/notifications/read', { key: alice.apiKey, json: { notificationId: read.id } });
      const repository = new NotificationRepository(env.container.db);
      const broadcastId = crypto.randomUUID();
      const written: { accountId: string; unreadCount: number }[] = [];
      let after: string | null = null;
      for (;;) {
        const batch = await repository.insertBroadcastBatch(broadcastId, { ...note('batched'), data: {} }, after, 2);
        written.push(...batch.written.map(({ row, unreadCount }) => ({ accountId: row.accountId, unreadCount })));
        if (!batch.last) break;
        after = batch.last;
      }
      const everyone = await env.container.db.select({ id: accounts.id }).from(accounts);
      expect(written.map((w) => w.accountId).sort()).to.deep.equal(everyone.map((a) => a.id).sort());
      expect(written.find((w) => w.accountId === alice.id)!.unreadCount).to.equal(1);
      expect(written.find((w) => w.accountId === bob.id)!.unreadCount).to.equal(3);
    });
  });
});
