import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { getPriority, tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { redisAnswers } from '../../scripts/lib/redis-server.js';
import { freePort } from '../helpers/ports.js';
import { s3EnvOf, startS3rver, type S3rverHandle } from '../helpers/s3rver.js';
import { ensureBuilt, launchCommand, runScript, spawnCommand } from '../helpers/run-script.js';

/** A child of `parent` whose command line mentions `script` (Linux /proc): its pid and its arguments. */
async function childRunning(parent: number, script: string): Promise<{ pid: number; argv: string[] }> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent && cmdline.includes(script)) {
      return { pid: Number(entry), argv: cmdline.split('\0').filter(Boolean) };
    }
  }
  throw new Error(`no child of ${parent} runs ${script}`);
}

/**
 * npm start's Redis runs in a process group of its own, so killing the start does not stop it:
 * stopped here too should a test have failed before the start stopped it.
 */
async function shutDownRedis(url: string) {
  const redis = new Redis(url, { lazyConnect: true, retryStrategy: () => null });
  redis.on('error', () => undefined);
  await redis.connect().then(() => redis.shutdown('NOSAVE'), () => undefined).catch(() => undefined);
  redis.disconnect();
}

describe('npm start (all in one, embedded defaults)', function () {
  this.timeout(120_000);
  before(() => ensureBuilt());

  it('starts its own Redis and the moderation service, warns of a VISION_URL that is another service, serves the API, shares the embedded database with the admin CLI and stops on Ctrl-C', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'hfs-start-'));
    const port = await freePort();
    const redisPort = await freePort();
    const visionPort = await freePort();
    // Another instance's moderation service, say: not the one this start runs.
    const otherVisionUrl = `http://127.0.0.1:${await freePort()}`;
    const visionUrl = `http://localhost:${visionPort}`;
    const env = {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      VISION_PORT: String(visionPort),
      VISION_URL: otherVisionUrl,
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
    };
    // The command npm start runs (package.json): compiled code, started by node itself.
    const child = spawnCommand(await launchCommand('npm start'), env);
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 90_000;
      while (!output.includes('is running')) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`start failed:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(output).to.include(`http://127.0.0.1:${port}/api`);
      // One warning naming both: the VISION_URL set and the VISION_PORT the child listens on.
      const warnings = output.split('\n').filter((line) => line.startsWith('{') && line.includes(otherVisionUrl));
      expect(warnings, output).to.have.length(1);
      expect(JSON.parse(warnings[0]!)).to.include({ level: 40, visionUrl: otherVisionUrl, visionPort });
      expect(await redisAnswers(env.REDIS_URL)).to.equal(true);

      const ping = await fetch(`http://127.0.0.1:${port}/api/ping`);
      expect(ping.status).to.equal(200);

      const created = await runScript('scripts/admin.ts', ['user', 'create', '--username', 'alice', '--password', 'pw-123456'], env);
      expect(created.code, created.stderr).to.equal(0);
      const { apiKey } = JSON.parse(created.stdout);
      const me = await fetch(`http://127.0.0.1:${port}/api/auth/me`, { headers: { 'x-api-key': apiKey } });
      expect(me.status).to.equal(200);
      expect(((await me.json()) as { data: { user: { username: string } } }).data.user.username).to.equal('alice');

      // The moderation service runs beside it.
      const deadlineVision = Date.now() + 60_000;
      let health: Response | undefined;
      while (!health?.ok && Date.now() < deadlineVision) {
        health = await fetch(`${visionUrl}/health`).catch(() => undefined);
        if (!health?.ok) await new Promise((r) => setTimeout(r, 200));
      }
      expect(health?.status).to.equal(200);
      // ...compiled too, at a lower CPU priority than the web process: judging waits when the machine is busy.
      const vision = await childRunning(child.pid!, 'api/moderation/main.js');
      expect(vision.argv.slice(1)).to.deep.equal([path.resolve('dist/api/moderation/main.js')]);
      expect(getPriority(vision.pid) - getPriority(child.pid!)).to.equal(10);

      child.kill('SIGINT');
      expect(await exited).to.equal(0);
      expect(await redisAnswers(env.REDIS_URL)).to.equal(false);
      expect(await fetch(`${visionUrl}/health`).then(() => 'up', () => 'down')).to.equal('down');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await shutDownRedis(env.REDIS_URL);
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('npm start, run by npm from a terminal (files on S3)', function () {
  this.timeout(120_000);
  let s3: S3rverHandle;
  let dataDir: string;
  let env: Record<string, string | undefined>;
  let npm: ChildProcess;
  let output = '';
  let exited: Promise<number | null>;

  before(async () => {
    await ensureBuilt();
    // S3 too, so the AWS SDK is loaded and would say what it has to say at start.
    s3 = await startS3rver();
    dataDir = await mkdtemp(path.join(tmpdir(), 'hfs-start-npm-'));
    const port = await freePort();
    env = {
      ...process.env,
      ...s3EnvOf(s3),
      DATA_DIR: dataDir,
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      VISION_PORT: String(await freePort()),
      VISION_URL: '',
      DATABASE_URL: '',
      LOG_LEVEL: 'info',
    };
    // Its own process group, as a terminal gives the command it runs: Ctrl-C signals the whole group.
    npm = spawn('npm', ['start'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    npm.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    npm.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    exited = new Promise((resolve) => npm.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 90_000;
    // Up once the moderation child answers too: it gets the group's Ctrl-C as well.
    while (!(output.includes('is running') && (await fetch(`http://localhost:${env.VISION_PORT}/health`).then((r) => r.ok, () => false)))) {
      if (npm.exitCode !== null || Date.now() > deadline) throw new Error(`npm start failed:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });
  after(async () => {
    if (npm?.exitCode === null) process.kill(-npm.pid!, 'SIGKILL');
    if (env) await shutDownRedis(env.REDIS_URL!);
    await s3?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('uses the moderation service it started: VISION_URL follows VISION_PORT', () => {
    expect(output).to.match(new RegExp(`Vision +http://localhost:${env.VISION_PORT}\\n`));
  });

  it(`prints no warning${process.versions.node.startsWith('20.') ? ' but one line saying Node 20 is end-of-life' : ''}`, () => {
    const warnings = output.split('\n').filter((line) => /warn|deprecat|unsupported|end-of-life/i.test(line) || /"level":[456]0/.test(line));
    if (process.versions.node.startsWith('20.')) {
      expect(warnings, output).to.have.length(1);
      expect(JSON.parse(warnings[0]!)).to.include({ level: 40 }).and.have.property('msg').that.matches(/Node 20 is end-of-life \(since April 2026\).*Node 22 LTS/);
    } else {
      expect(warnings, output).to.deep.equal([]);
    }
  });

  it('drains once on one Ctrl-C to its process group, and npm exits 0', async () => {
    process.kill(-npm.pid!, 'SIGINT');
    expect(await exited, output).to.equal(0);
    expect(output.split('"msg":"shutting down"'), output).to.have.length(2);
    expect(output).to.not.include('second signal');
    // Nothing left behind: its Redis and its moderation service stopped with it.
    expect(await redisAnswers(env.REDIS_URL!)).to.equal(false);
    expect(await fetch(`http://localhost:${env.VISION_PORT}/health`).then(() => 'up', () => 'down')).to.equal('down');
  });
});
