import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectPostgres } from '../../shared/db/client.js';
import { emptyPostgresDatabase, testRedisUrl } from '../helpers/engines.js';
import { runScript } from '../helpers/run-script.js';

describe('admin CLI: user commands', function () {
  this.timeout(120_000);
  let env: Record<string, string>;
  let dataDir: string;

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), 'hfs-admin-'));
    const url = await emptyPostgresDatabase();
    // On PostgreSQL a database of its own; otherwise the embedded PGlite in a data dir of its own.
    const common = { DATA_DIR: dataDir, REDIS_URL: testRedisUrl(), REDIS_PREFIX: `admin${randomBytes(3).toString('hex')}` };
    env = url ? { ...common, DATABASE_URL: url, SECRET_KEY: randomBytes(32).toString('hex') } : { ...common, DATABASE_URL: '' };
    if (url) {
      const handle = connectPostgres(url, 1);
      await handle.migrate();
      await handle.close();
    } else {
      expect((await runScript('scripts/migrate.ts', [], env)).code).to.equal(0);
    }
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  const admin = async (...args: string[]) => {
    const result = await runScript('scripts/admin.ts', args, env);
    return { ...result, json: result.code === 0 ? JSON.parse(result.stdout) : undefined };
  };

  it('creates a user and prints {id, username, apiKey}', async () => {
    const res = await admin('user', 'create', '--username', 'alice', '--password', 'pw-123456', '--email', 'a@example.com');
    expect(res.code, res.stderr).to.equal(0);
    expect(res.json).to.have.all.keys('id', 'username', 'apiKey');
    expect(res.json.username).to.equal('alice');
    const shown = await admin('user', 'show', 'alice');
    expect(shown.json).to.include({ id: res.json.id, apiKey: res.json.apiKey, email: 'a@example.com', plan: 'free', status: 'active' });
  });

  it('sets the plan, bans and unbans', async () => {
    await admin('user', 'create', '--username', 'bob', '--password', 'pw-123456', '--plan', 'pro');
    expect((await admin('user', 'show', 'bob')).json.plan).to.equal('pro');
    expect((await admin('user', 'set-plan', 'bob', 'free')).json.plan).to.equal('free');
    const banned = await admin('user', 'ban', 'bob', '--reason', 'spam');
    expect(banned.json.status).to.equal('banned');
    expect((await admin('user', 'unban', 'bob')).json.status).to.equal('active');
  });

  it('exits 1 with a message on stderr for bad input', async () => {
    const duplicate = await admin('user', 'create', '--username', 'alice', '--password', 'pw-123456');
    expect(duplicate.code).to.equal(1);
    expect(duplicate.stderr).to.match(/already taken/);
    const missing = await admin('user', 'show', 'nobody');
    expect(missing.code).to.equal(1);
    expect((await admin('user', 'set-plan', 'alice', 'gold')).code).to.equal(1);
    expect((await admin('bogus')).code).to.equal(1);
  });

  it('notifies one user, and queues a broadcast for all', async () => {
    const one = await admin('notify', '--user', 'alice', '--type', 'system', '--title', 'Hello', '--message', 'Welcome', '--link', '/docs', '--link-text', 'Read');
    expect(one.code, one.stderr).to.equal(0);
    expect(one.json).to.include({ type: 'system', title: 'Hello', message: 'Welcome', read: false });
    expect(one.json.data).to.deep.equal({ link: '/docs', linkText: 'Read' });
    const all = await admin('notify', '--all', '--type', 'news', '--title', 'Update', '--message', 'New things');
    expect(all.code, all.stderr).to.equal(0);
    expect(all.json.broadcastId).to.match(/^[0-9a-f-]{36}$/);
    expect((await admin('notify', '--user', 'alice', '--title', 'no type', '--message', 'x')).code).to.equal(1);
  });

  it('creates and closes polls', async () => {
    const created = await admin('poll', 'create', '--question', 'Dark mode?', '--option', 'Yes', '--option', 'No', '--description', 'Vote', '--user', 'alice');
    expect(created.code, created.stderr).to.equal(0);
    expect(created.json.id).to.match(/^[0-9a-f-]{36}$/);
    expect(created.json.options.map((o: { text: string }) => o.text)).to.deep.equal(['Yes', 'No']);
    const closed = await admin('poll', 'close', created.json.id);
    expect(closed.json).to.include({ id: created.json.id, status: 'closed' });
    expect((await admin('poll', 'create', '--question', 'One option only', '--option', 'A')).code).to.equal(1);
    expect((await admin('poll', 'close', 'nope')).code).to.equal(1);
  });
});
