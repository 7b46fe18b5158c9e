import { expect } from 'chai';
import { rm } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import { preparedScriptEnv } from '../helpers/engines.js';
import { runScript } from '../helpers/run-script.js';

/** Neither SQL, nor its parameters, nor anything shaped like a password's hash or a key. */
function expectNoQueryDetails(stderr: string) {
  expect(stderr).to.not.match(/insert|select|update|params|\$argon|\$scrypt|scrypt|pw-123456/i);
  expect(stderr).to.not.match(/[A-Za-z0-9+/=$_-]{32,}/);
}

describe('admin CLI: user commands', function () {
  this.timeout(120_000);
  let env: Record<string, string>;
  let dataDir: string;

  before(async function () {
    ({ env, dataDir } = await preparedScriptEnv('admin'));
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
    expectNoQueryDetails(duplicate.stderr);
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

describe('admin CLI: a failure it has no message for', function () {
  this.timeout(120_000);
  let env: Record<string, string>;
  let dataDir: string;

  before(async function () {
    // The database itself refuses new accounts: a driver error no repository turns into a message.
    ({ env, dataDir } = await preparedScriptEnv('admin', async (handle) => {
      for (const statement of REFUSE_ACCOUNTS) await handle.db.execute(sql.raw(statement));
    }));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it('prints its kind in one line, never the SQL, its parameters or the password hash, and exits 1', async () => {
    const res = await runScript('scripts/admin.ts', ['user', 'create', '--username', 'carol', '--password', 'pw-123456'], env);
    expect(res.code).to.equal(1);
    expect(res.stdout).to.equal('');
    expect(res.stderr).to.equal('error: database query failed (SQLSTATE P0001) (LOG_LEVEL=debug logs the details)\n');
    expectNoQueryDetails(res.stderr);
  });

  it('logs the details at LOG_LEVEL=debug on stderr, still without parameters', async () => {
    const res = await runScript('scripts/admin.ts', ['user', 'create', '--username', 'carol', '--password', 'pw-123456'], { ...env, LOG_LEVEL: 'debug' });
    expect(res.code).to.equal(1);
    const logged = res.stderr.split('\n').find((line) => line.startsWith('{'))!;
    const { err } = JSON.parse(logged) as { err: { query: string; cause: { message: string } } };
    expect(err.query).to.match(/^insert into "accounts"/);
    expect(err.cause.message).to.equal('accounts are closed');
    expect(logged).to.not.match(/params|pw-123456|\$scrypt|\$argon/);
  });
});

const REFUSE_ACCOUNTS = [
  `create function refuse_accounts() returns trigger language plpgsql as $$ begin raise exception 'accounts are closed'; end $$`,
  'create trigger refuse_accounts before insert on accounts for each row execute function refuse_accounts()',
];
