import { spawn, spawnSync } from 'node:child_process';

/** One wrk run's figures. */
export interface WrkResult {
  requestsPerSec: number;
  bytesPerSec: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** connect, read, write and timeout errors */
  socketErrors: number;
  /** answers other than 2xx and 3xx */
  badStatus: number;
}

export interface WrkOptions {
  seconds: number;
  threads?: number;
  connections?: number;
  headers?: Record<string, string>;
}

export function hasWrk(): boolean {
  return spawnSync('wrk', ['-v'], { stdio: 'ignore' }).error === undefined;
}

/** `wrk -t2 -c64 -d{seconds}s --latency` against `url` (wrk from PATH: the Debian package `wrk`). */
export function runWrk(url: string, options: WrkOptions): Promise<WrkResult> {
  const args = [`-t${options.threads ?? 2}`, `-c${options.connections ?? 64}`, `-d${options.seconds}s`, '--latency'];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}: ${value}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      try {
        if (code !== 0) throw new Error(`exited with ${code}`);
        resolve(parseWrk(out));
      } catch (err) {
        reject(new Error(`wrk ${args.join(' ')}: ${(err as Error).message}\n${out}`));
      }
    });
  });
}

const TIME_UNITS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const SIZE_UNITS: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/** Reads wrk's report: Requests/sec, Transfer/sec, the --latency distribution and the error lines. */
export function parseWrk(out: string): WrkResult {
  const number = (pattern: RegExp, what: string) => {
    const match = pattern.exec(out);
    if (!match) throw new Error(`no ${what} in wrk's output`);
    return match;
  };
  const latency = (percent: number) => {
    const [, value, unit] = number(new RegExp(`^\\s+${percent}%\\s+([\\d.]+)(us|ms|s|m|h)\\s*$`, 'm'), `${percent}% latency`);
    return Number(value) * TIME_UNITS[unit!]!;
  };
  const [, transfer, prefix] = number(/^Transfer\/sec:\s+([\d.]+)([KMGT]?)B\s*$/m, 'Transfer/sec');
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const non2xx3xx = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  return {
    requestsPerSec: Number(number(/^Requests\/sec:\s+([\d.]+)\s*$/m, 'Requests/sec')[1]),
    bytesPerSec: Number(transfer) * SIZE_UNITS[prefix!]!,
    p50Ms: latency(50),
    p99Ms: latency(99),
    requests: Number(number(/^\s+(\d+) requests in/m, 'request count')[1]),
    socketErrors: socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    badStatus: Number(non2xx3xx?.[1] ?? 0),
  };
}
