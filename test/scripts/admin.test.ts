import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import { preparedScriptEnv } from '../helpers/engines.js';
import { ensureBuilt, runScript, type ScriptResult } from '../helpers/run-script.js';

/** Neither SQL, nor its parameters, nor anything shaped like a password's hash or a key. */
function expectNoQueryDetails(stderr: string) {
  expect(stderr).to.not.match(/insert|select|update|params|\$argon|\$scrypt|scrypt|pw-123456/i);
  expect(stderr).to.not.match(/[A-Za-z0-9+/=$_-]{32,}/);
}

describe('admin CLI: user commands', function () {
  // Several CLI processes a test, each loading the service and opening the database: on a busy
  // two-core machine one test took 100 s.
  this.timeout(240_000);
  let env: Record<string, string>;
  let dataDir: string;

  before(async function () {
    ({ env, dataDir } = await preparedScriptEnv('admin'));
    // npm run admin runs the compiled CLI.
    await ensureBuilt();
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

  it('names the user with --username in user show, set-plan, ban and unban (the positional form still works)', async () => {
    await admin('user', 'create', '--username', 'carol', '--password', 'pw-123456');
    const shown = await admin('user', 'show', '--username', 'carol');
    expect(shown.code, shown.stderr).to.equal(0);
    expect(shown.json).to.deep.equal((await admin('user', 'show', 'carol')).json);
    expect((await admin('user', 'set-plan', '--username', 'carol', '--plan', 'pro')).json.plan).to.equal('pro');
    expect((await admin('user', 'ban', '--username', 'carol', '--reason', 'spam')).json.status).to.equal('banned');
    expect((await admin('user', 'unban', '--username', 'carol')).json.status).to.equal('active');
  });

  it('names the user with --username in notify and poll create, and the poll with --id in poll close', async () => {
    const notified = await admin('notify', '--username', 'carol', '--type', 'system', '--title', 'Hi', '--message', 'There');
    expect(notified.code, notified.stderr).to.equal(0);
    const poll = await admin('poll', 'create', '--question', 'Tea?', '--option', 'Yes', '--option', 'No', '--username', 'carol');
    expect(poll.code, poll.stderr).to.equal(0);
    expect((await admin('poll', 'close', '--id', poll.json.id)).json).to.include({ id: poll.json.id, status: 'closed' });
  });

  it('prints exactly one JSON object on stdout when run as `npm run -s admin -- user show …`', async () => {
    for (const args of [['user', 'show', 'alice'], ['user', 'show', '--username', 'alice']]) {
      const res = await npmAdmin(args, env);
      expect(res.code, res.stderr).to.equal(0);
      const lines = res.stdout.split('\n');
      expect(lines, res.stdout).to.have.length(2);
      expect(lines[1]).to.equal('');
      expect(JSON.parse(lines[0]!)).to.include({ username: 'alice', email: 'a@example.com' });
    }
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

  it('notifies one user (--user, the older spelling of --username), and queues a broadcast for all', async () => {
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

/** The CLI as the README has operators run it: `npm run -s admin -- …`, npm and all. */
function npmAdmin(args: string[], env: Record<string, string>): Promise<ScriptResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '-s', 'admin', '--', ...args], { env: { ...process.env, LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `run` over `items`, three at a time: each is a process of its own. */
async function inBatches<T, R>(items: T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += 3) results.push(...(await Promise.all(items.slice(i, i + 3).map(run))));
  return results;
}

const COMMANDS = ['user create', 'user show', 'user set-plan', 'user ban', 'user unban', 'notify', 'poll create', 'poll close', 'moderation list', 'moderation release', 'storage reconcile', 'storage verify'];

describe('admin CLI: help and usage', function () {
  this.timeout(120_000);
  // No database, no Redis: help and usage errors come before anything is opened.
  const env = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', SECRET_KEY: 'k'.repeat(32), REDIS_URL: 'redis://127.0.0.1:1' };
  const admin = (...args: string[]) => runScript('scripts/admin.ts', args, env);

  it('prints the usage of every command on stdout and exits 0 for --help, -h and help', async () => {
    for (const res of await inBatches([['--help'], ['-h'], ['help']], (args) => admin(...args))) {
      expect(res.code, res.stderr).to.equal(0);
      expect(res.stderr).to.equal('');
      expect(res.stdout).to.match(/^Usage: npm run -s admin -- <command> \[options\]\n/);
      for (const name of COMMANDS) expect(res.stdout).to.include(`\n  ${name} `.trimEnd());
    }
  });

  it('prints the help of each command and each group on stdout and exits 0', async () => {
    const asked = [...COMMANDS, 'user', 'poll', 'moderation', 'storage'].map((name) => name.split(' '));
    const forms = [...asked.map((words) => [...words, '--help']), ['help', 'user', 'create'], ['help', 'poll'], ['user', 'show', '-h']];
    const answers = await inBatches(forms, (args) => admin(...args));
    answers.forEach((res, i) => {
      const name = forms[i]!.filter((word) => !['help', '--help', '-h'].includes(word)).join(' ');
      expect(res.code, `${name}: ${res.stderr}`).to.equal(0);
      expect(res.stdout, name).to.match(new RegExp(`^Usage: npm run -s admin -- ${name}\\b`));
    });
    expect(answers.at(-1)!.stdout).to.include('--username U').and.include('may also be given by position: user show U');
  });

  it('prints the usage on stderr and exits 1 for an unknown command, subcommand or option, or a missing option', async () => {
    const cases: [string[], RegExp][] = [
      [[], /^error: no command given\nusage: user create /],
      [['bogus'], /^error: unknown command: bogus\nusage: user create /],
      [['user'], /^error: user needs one of: create, show, set-plan, ban, unban\nusage: user create /],
      [['user', 'rename'], /^error: unknown command: user rename\n/],
      [['user', 'show', '--name', 'alice'], /^error: Unknown option '--name'.*\nusage: user show --username U\n/],
      [['user', 'show'], /^error: user show needs --username\nusage: user show --username U\n/],
      [['user', 'show', 'alice', 'bob'], /^error: unexpected argument: bob\n/],
      [['user', 'show', 'alice', '--username', 'bob'], /^error: give --username once\n/],
      [['notify', '--type', 't', '--title', 't', '--message', 'm'], /^error: notify needs either --username or --all\nusage: notify \(--username U \| --all\) /],
    ];
    const results = await inBatches(cases, ([args]) => admin(...args));
    results.forEach((res, i) => {
      const [args, expected] = cases[i]!;
      expect(res.code, args.join(' ')).to.equal(1);
      expect(res.stdout, args.join(' ')).to.equal('');
      expect(res.stderr, args.join(' ')).to.match(expected).and.match(/says more\)\n$/);
    });
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
