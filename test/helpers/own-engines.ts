import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { startRedisServer, type LocalRedis } from '../../scripts/lib/redis-server.js';
import { freePort } from './ports.js';

/**
 * Engines that belong to one test, so it can stop and start them under running processes (the
 * engines of the run, engines.ts, are shared by every file and never stop).
 */

const run = promisify(execFile);

export interface OwnRedis {
  url: string;
  port: number;
  /** Stops the server; clients see their connections close and further connects refused. */
  stop(): Promise<void>;
  /** A fresh, empty server on the same port (everything Redis held before stop() is gone). */
  start(): Promise<void>;
}

/** A redis-server of the test's own on a free loopback port. */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let server: LocalRedis | undefined;
  let dir: string | undefined;
  const start = async () => {
    if (server) return;
    // An empty directory of its own each time: nothing a former server (or the cwd) kept is loaded.
    dir = await mkdtemp(path.join(tmpdir(), 'hfs-redis-'));
    server = await startRedisServer(port, dir);
  };
  const stop = async () => {
    await server?.stop();
    server = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, start, stop };
}

export interface OwnPostgres {
  /** A database (`hfs`, empty) in the cluster. */
  url: string;
  port: number;
  /** `pg_ctl stop -m fast`: connections are cut, new ones refused. */
  stop(): Promise<void>;
  /** The same cluster again, same port and data. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  destroy(): Promise<void>;
}

/** The newest PostgreSQL server binaries installed (Debian layout), or undefined. */
function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin', 'pg_ctl')) && existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && path.join(root, versions[0], 'bin');
}

/**
 * A PostgreSQL cluster of the test's own (initdb in a temp dir, trust auth, 127.0.0.1 on a free
 * port), or undefined when the server binaries are not installed. PostgreSQL refuses to run as
 * root, so as root the cluster belongs to, and runs as, the `postgres` OS user.
 */
export async function startOwnPostgres(): Promise<OwnPostgres | undefined> {
  const bin = postgresBinDir();
  if (!bin) return undefined;
  const asRoot = userInfo().uid === 0;
  const dir = await mkdtemp(path.join(tmpdir(), 'hfs-pg-'));
  const data = path.join(dir, 'data');
  const pgAs = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]) : run(path.join(bin, tool), args);
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const port = await freePort();
  const ctl = (...args: string[]) => pgAs('pg_ctl', ['-D', data, ...args]);
  // fsync off: the data is thrown away, and a fast stop must not wait for the disk.
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  let running = false;
  const start = async () => {
    if (running) return;
    await ctl('-l', path.join(dir, 'server.log'), '-o', options, '-w', '-t', '30', 'start');
    running = true;
  };
  const stop = async () => {
    if (!running) return;
    await ctl('-m', 'fast', '-w', '-t', '30', 'stop');
    running = false;
  };
  try {
    await pgAs('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    await start();
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    await admin.connect();
    await admin.query('create database hfs').finally(() => admin.end());
  } catch (err) {
    await stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/hfs`,
    port,
    start,
    stop,
    async destroy() {
      if (running) await ctl('-m', 'immediate', '-w', 'stop').catch(() => undefined);
      running = false;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
