import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { databaseKind, isAlive, needsPostgres, preparedScriptEnv, testRedisUrl } from '../helpers/engines.js';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/ports.js';
import { heldUpload, startCommand, startProcfile, type StartedProcess } from '../helpers/processes.js';
import { ensureBuilt, launchCommand, runCommand, runScript } from '../helpers/run-script.js';

/**
 * Issue 43: WEB_CONCURRENCY web processes share PORT (node:cluster). Every request here goes over a
 * fresh connection, which the primary hands to the next child in turn; the child that answered is
 * read from its log line (pino's `pid`), found by the request id the test sent.
 */

interface Answer {
  status: number;
  body: Buffer;
  pid: number;
}

/** The pids of the processes that printed `msg`, in order. */
function pidsThatPrinted(started: StartedProcess, msg: string): number[] {
  return linesOf(started)
    .filter((line) => line.msg === msg)
    .map((line) => line.pid as number);
}

/** The log lines printed so far (the processes share the output; the last line may still be arriving). */
function linesOf(started: StartedProcess): Record<string, unknown>[] {
  return started
    .output()
    .split('\n')
    .slice(0, -1)
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A web service of several processes: requests over fresh connections, answered with the child's pid. */
class Cluster {
  constructor(
    readonly process: StartedProcess,
    readonly port: number,
  ) {}

  /** The children serving now: those the primary started and their replacements, less those that exited. */
  children(): number[] {
    const lines = linesOf(this.process);
    const first = lines.filter((l) => l.msg === 'web processes listening').flatMap((l) => l.pids as number[]);
    const exited = new Set(lines.filter((l) => l.msg === 'a web process exited: starting another').map((l) => l.child));
    return [...new Set([...first, ...pidsThatPrinted(this.process, 'web listening')])].filter((pid) => !exited.has(pid));
  }

  async send(method: string, url: string, options: { headers?: Record<string, string>; body?: Buffer } = {}): Promise<Answer> {
    const target = new URL(url, `http://127.0.0.1:${this.port}`);
    const reqId = `t-${randomUUID()}`;
    const { status, body } = await new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
      // agent: false: a connection of its own, so the primary picks a child for this request alone.
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: this.port,
          method,
          path: target.pathname + target.search,
          agent: false,
          headers: { host: target.host, 'x-request-id': reqId, ...options.headers, ...(options.body ? { 'content-length': String(options.body.length) } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(options.body);
    });
    let line: Record<string, unknown> | undefined;
    await eventually(async () => (line = linesOf(this.process).find((l) => l.reqId === reqId && l.msg === 'request')) !== undefined);
    return { status, body, pid: line!.pid as number };
  }

  upload(apiKey: string, name: string, content: string): Promise<Answer> {
    return this.sendFile('POST', '/api/upload?format=json', apiKey, name, content);
  }

  replace(apiKey: string, filename: string, content: string): Promise<Answer> {
    return this.sendFile('PATCH', `/api/user/images/${filename}/replace`, apiKey, filename, content);
  }

  private sendFile(method: string, url: string, apiKey: string, name: string, content: string): Promise<Answer> {
    const boundary = `b${randomBytes(8).toString('hex')}`;
    const body = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n${content}\r\n--${boundary}--\r\n`,
    );
    return this.send(method, url, { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'x-api-key': apiKey } });
  }

  /** Sends `next()` over fresh connections until every child has answered one (each answer goes to `check`). */
  async fromEveryChild(next: () => Promise<Answer>, check: (answer: Answer) => void = () => undefined): Promise<Answer[]> {
    const answers: Answer[] = [];
    const children = this.children();
    while (!children.every((pid) => answers.some((a) => a.pid === pid))) {
      expect(answers.length, 'the children answered in turn').to.be.below(4 * children.length);
      const answer = await next();
      check(answer);
      answers.push(answer);
    }
    return answers;
  }
}

/** Every process below `root` (Linux /proc). */
async function descendantsOf(root: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (stat) parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const below = (pid: number): number[] => [...parents].filter(([, parent]) => parent === pid).flatMap(([child]) => [child, ...below(child)]);
  return below(root);
}

describe('WEB_CONCURRENCY: several web processes share PORT', function () {
  this.timeout(240_000);

  describe('web (Procfile) on PostgreSQL', () => {
    let env: Record<string, string>;
    let dataDir: string;
    const started: StartedProcess[] = [];

    before(async function () {
      // The embedded database serves one process: several web processes need PostgreSQL.
      if (databaseKind() === 'pglite') return needsPostgres(this, undefined);
      const prepared = await preparedScriptEnv('concurrency');
      dataDir = prepared.dataDir;
      env = { ...prepared.env, MODERATION_ENABLED: 'false', NODE_ENV: 'test', WEB_CONCURRENCY: '2' };
    });
    after(async () => {
      await Promise.all(started.map((p) => p.kill()));
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    async function startCluster(extra: Record<string, string> = {}): Promise<Cluster> {
      const port = await freePort();
      const base = `http://localhost:${port}`;
      const web = await startProcfile('web', '', { ...env, PORT: String(port), BASE_URL: base, ...extra }, '"msg":"web processes listening"');
      started.push(web);
      return new Cluster(web, port);
    }

    async function createAccount(username: string): Promise<string> {
      const created = await runScript('scripts/admin.ts', ['user', 'create', '--username', username, '--password', 'pw-12345678'], env);
      expect(created.code, created.stderr).to.equal(0);
      return (JSON.parse(created.stdout) as { apiKey: string }).apiKey;
    }

    describe('one cluster of two', () => {
      let cluster: Cluster;
      before(async () => {
        cluster = await startCluster({ RATE_LIMIT_UPLOADS_PER_MINUTE: '3' });
      });

      it('runs two children that both answer, and a primary that serves nothing itself', async () => {
        const children = cluster.children();
        expect(children).to.have.length(2);
        expect(new Set([cluster.process.child.pid, ...children])).to.have.length(3);
        const answers = await cluster.fromEveryChild(() => cluster.send('GET', '/api/ping'), (a) => expect(a.status).to.equal(200));
        expect(answers.map((a) => a.pid)).to.not.include(cluster.process.child.pid);
      });

      it('shares rate limits: uploads answered by both children count against one limit', async () => {
        const apiKey = await createAccount('limited');
        const answers: Answer[] = [];
        for (let i = 0; i < 4; i++) answers.push(await cluster.upload(apiKey, `n${i}.txt`, `upload ${i}`));
        expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 429]);
        const accepted = answers.slice(0, 3);
        const refusedBy = answers[3]!.pid;
        expect(new Set(accepted.map((a) => a.pid))).to.have.length(2);
        // The child that refused had seen fewer uploads than the limit itself: the count is shared.
        expect(accepted.filter((a) => a.pid === refusedBy).length).to.be.below(3);
      });

      it('shares invalidation: after a replace and a delete every child answers the new state at once', async () => {
        const apiKey = await createAccount('reader');
        const uploaded = await cluster.upload(apiKey, 'hot.txt', 'old bytes');
        expect(uploaded.status).to.equal(200);
        const { url, filename } = (JSON.parse(uploaded.body.toString()) as { data: { url: string; filename: string } }).data;
        // Read by both: each child now has the file in its memory cache.
        await cluster.fromEveryChild(() => cluster.send('GET', url), (a) => expect(a.body.toString()).to.equal('old bytes'));

        const replaced = await cluster.replace(apiKey, filename, 'new bytes');
        expect(replaced.status, replaced.body.toString()).to.equal(200);
        await cluster.fromEveryChild(
          () => cluster.send('GET', url),
          (a) => expect(a.body.toString(), `pid ${a.pid}`).to.equal('new bytes'),
        );

        const deleted = await cluster.send('DELETE', `/api/user/images/${filename}`, { headers: { 'x-api-key': apiKey } });
        expect(deleted.status).to.equal(200);
        await cluster.fromEveryChild(
          () => cluster.send('GET', url),
          (a) => expect(a.status, `pid ${a.pid}`).to.equal(404),
        );
      });

      it('replaces a child that crashed, after a delay', async () => {
        const [victim, survivor] = cluster.children();
        process.kill(victim!, 'SIGKILL');
        let exited: Record<string, unknown> | undefined;
        await eventually(async () => (exited = linesOf(cluster.process).find((l) => l.msg === 'a web process exited: starting another' && l.child === victim)) !== undefined);
        expect(exited).to.include({ signal: 'SIGKILL', restartInMs: 1000 });
        await eventually(async () => cluster.children().length === 2, 30_000);
        const replacement = cluster.children().find((pid) => pid !== survivor)!;
        expect(replacement).to.not.equal(victim);
        const answers: Answer[] = [];
        while (!answers.some((a) => a.pid === replacement)) {
          expect(answers.length).to.be.below(8);
          answers.push(await cluster.send('GET', '/api/ping'));
        }
        expect(answers.map((a) => a.pid)).to.not.include(victim);
      });
    });

    it('drains both children on SIGTERM to the primary: a request in flight on each completes, all exit 0', async () => {
      const apiKey = await createAccount('drainer');
      const cluster = await startCluster({ SHUTDOWN_TIMEOUT_MS: '30000' });
      const children = cluster.children();
      // Two connections in a row go to the two children in turn.
      const uploads = [await heldUpload(cluster.port, apiKey), await heldUpload(cluster.port, apiKey)];
      cluster.process.child.kill('SIGTERM');
      await eventually(async () => pidsThatPrinted(cluster.process, 'shutting down').length === 3);
      for (const upload of uploads) upload.finish();
      expect(await Promise.all(uploads.map((u) => u.response()))).to.deep.equal([200, 200]);
      expect(await cluster.process.exited, cluster.process.output()).to.equal(0);
      const uploadedBy = linesOf(cluster.process).filter((l) => l.path === '/api/upload' && l.status === 200).map((l) => l.pid);
      expect(new Set(uploadedBy)).to.deep.equal(new Set(children));
      for (const pid of children) expect(isAlive(pid), `child ${pid}`).to.equal(false);
    });

    it('says in one line when PORT is taken, before it starts any child', async () => {
      const taken: Server = createServer();
      const port = await new Promise<number>((resolve) => taken.listen(0, '0.0.0.0', () => resolve((taken.address() as { port: number }).port)));
      try {
        const result = await runCommand(await launchCommand('Procfile web'), { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'info' });
        expect(result.code).to.equal(1);
        expect(result.stderr.trim()).to.equal(`Port ${port} is already in use: stop what listens there, or set PORT to a free port`);
        expect(result.stdout).to.not.include('web listening');
      } finally {
        taken.close();
      }
    });
  });

  it('web refuses several processes on the embedded database, in one line', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'hfs-concurrency-'));
    try {
      const result = await runCommand(await launchCommand('Procfile web'), { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', WEB_CONCURRENCY: '2', PORT: String(await freePort()) });
      expect(result.code).to.equal(1);
      expect(result.stderr.trim()).to.match(/^WEB_CONCURRENCY=2 needs DATABASE_URL: /);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('npm start with WEB_CONCURRENCY=2 serves from two web processes on its embedded database and SIGTERM stops them all', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'hfs-concurrency-start-'));
    const port = await freePort();
    const env = {
      DATA_DIR: dataDir,
      PORT: String(port),
      BASE_URL: `http://localhost:${port}`,
      REDIS_URL: testRedisUrl(),
      REDIS_PREFIX: `start${randomBytes(3).toString('hex')}`,
      VISION_PORT: String(await freePort()),
      VISION_URL: '',
      DATABASE_URL: '',
      SECRET_KEY: '',
      MODERATION_ENABLED: 'false',
      WEB_CONCURRENCY: '2',
    };
    // Built once for the run: npm start's own --if-stale check would build again after any source changed since.
    await ensureBuilt();
    const command = (await launchCommand('npm start')).replace(/^node scripts\/build\.mjs --if-stale && /, '');
    const start = await startCommand(command, env, 'is running');
    try {
      expect(start.output()).to.include('2 web processes');
      await start.printed('"msg":"web processes listening"');
      const cluster = new Cluster(start, port);
      expect(cluster.children()).to.have.length(2);
      // Through the embedded database's socket, beside the two web processes.
      const created = await runScript('scripts/admin.ts', ['user', 'create', '--username', 'alice', '--password', 'pw-12345678'], env);
      expect(created.code, created.stderr).to.equal(0);
      const { apiKey } = JSON.parse(created.stdout) as { apiKey: string };
      const uploads = await cluster.fromEveryChild(() => cluster.upload(apiKey, 'both.txt', 'hello'), (a) => expect(a.status, a.body.toString()).to.equal(200));
      for (const { body } of uploads) {
        const { url } = (JSON.parse(body.toString()) as { data: { url: string } }).data;
        expect((await cluster.send('GET', url)).body.toString()).to.equal('hello');
      }

      // Its web processes and the moderation service.
      const processes = [start.child.pid!, ...(await descendantsOf(start.child.pid!))];
      expect(processes).to.include.members(cluster.children()).and.have.length(4);
      start.child.kill('SIGTERM');
      expect(await start.exited, start.output()).to.equal(0);
      for (const pid of processes) expect(isAlive(pid), `process ${pid}`).to.equal(false);
    } finally {
      await start.kill();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
