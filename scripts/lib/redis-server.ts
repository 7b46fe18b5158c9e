import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { Redis } from 'ioredis';

export interface LocalRedis {
  url: string;
  stop(): Promise<void>;
}

export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

export async function redisAnswers(url: string, timeoutMs = 1500): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * Starts `redis-server` from PATH on 127.0.0.1:port. With `dir` its data persists there (append-only
 * file); without, nothing is kept on disk (tests). With `ownProcessGroup` a Ctrl-C at the terminal
 * (which signals the whole group) does not reach it: the caller stops it once it has drained.
 */
export async function startRedisServer(port: number, dir?: string, { ownProcessGroup = false } = {}): Promise<LocalRedis> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', ''];
  if (dir) {
    mkdirSync(dir, { recursive: true });
    args.push('--dir', dir, '--appendonly', 'yes');
  } else {
    args.push('--appendonly', 'no');
  }
  const child: ChildProcess = spawn('redis-server', args, { stdio: 'ignore', detached: ownProcessGroup });
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (!(await redisAnswers(url, 300))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start on port ${port}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
