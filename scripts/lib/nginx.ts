import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// nginx from PATH (Debian package `nginx`) as a child of the caller, for tests and benchmarks: its
// pid file, logs and temp files stay inside a fresh directory, removed when it stops.

export interface RunningNginx {
  /** http://127.0.0.1:{port} */
  url: string;
  /** the -p prefix: logs/ and temp/ are here, and relative paths of the config resolve against it */
  dir: string;
  pid: number;
  stop(): Promise<void>;
}

export interface NginxOptions {
  /** The port the config listens on (127.0.0.1), probed until nginx answers. */
  port: number;
  /** Put inside `http {}` after the launcher's own lines: server blocks, upstreams, settings. */
  http: string;
  workerProcesses?: number;
  /** Where the prefix directory is made (default: the system's temp dir). */
  parent?: string;
}

export function hasNginx(): boolean {
  return spawnSync('nginx', ['-v'], { stdio: 'ignore' }).status === 0;
}

/** `nginx version: nginx/1.22.1` → `nginx/1.22.1` */
export function nginxVersion(): string {
  const out = spawnSync('nginx', ['-v'], { encoding: 'utf8' });
  return /nginx\/\S+/.exec(`${out.stderr}${out.stdout}`)?.[0] ?? 'nginx';
}

/** Starts `nginx -g 'daemon off;'` with `http` as its configuration and waits until the port answers. */
export async function startNginx(options: NginxOptions): Promise<RunningNginx> {
  const dir = await mkdtemp(path.join(options.parent ?? tmpdir(), 'hfs-nginx-'));
  await mkdir(path.join(dir, 'logs'));
  await mkdir(path.join(dir, 'temp'));
  const conf = path.join(dir, 'nginx.conf');
  await writeFile(conf, mainConfig(dir, options));
  // -e: the error log from the first moment, before the config is read (the built-in one is under /var/log).
  const child = spawn('nginx', ['-p', `${dir}/`, '-c', conf, '-e', path.join(dir, 'logs', 'error.log'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // SIGTERM: fast shutdown of master and workers; SIGKILL if it hangs.
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(killer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  while (!(await answers(options.port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      const log = await readFile(path.join(dir, 'logs', 'error.log'), 'utf8').catch(() => '');
      await stop();
      throw new Error(`nginx did not answer on port ${options.port}:\n${stderr}${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `http://127.0.0.1:${options.port}`, dir, pid: child.pid!, stop };
}

function mainConfig(dir: string, options: NginxOptions): string {
  const temp = (name: string) => path.join(dir, 'temp', name);
  return [
    // As root the workers would run as `nobody`, who cannot read the callers' private temp dirs.
    process.getuid?.() === 0 ? 'user root;' : '',
    `worker_processes ${options.workerProcesses ?? 1};`,
    `pid ${path.join(dir, 'nginx.pid')};`,
    `error_log ${path.join(dir, 'logs', 'error.log')} warn;`,
    'events { worker_connections 1024; }',
    'http {',
    existsSync('/etc/nginx/mime.types') ? '  include /etc/nginx/mime.types;' : '  types { image/png png; }',
    '  default_type application/octet-stream;',
    // What a default server logs to; a config may turn it off or log elsewhere.
    `  access_log ${path.join(dir, 'logs', 'access.log')};`,
    `  client_body_temp_path ${temp('client_body')};`,
    `  proxy_temp_path ${temp('proxy')};`,
    `  fastcgi_temp_path ${temp('fastcgi')};`,
    `  uwsgi_temp_path ${temp('uwsgi')};`,
    `  scgi_temp_path ${temp('scgi')};`,
    options.http,
    '}',
    '',
  ].join('\n');
}

/** Whether an HTTP request to the port gets any answer at all. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', method: 'HEAD', timeout: 1000 }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

export interface ExampleConfigOptions {
  /** nginx listens on 127.0.0.1:{listenPort} */
  listenPort: number;
  /** the web processes' ports (the example's upstream) */
  upstreamPorts: number[];
  /** the service's DATA_DIR: the internal location serves {dataDir}/files/ */
  dataDir: string;
  /** default: the example's own access_log line, logging into the prefix's logs/ */
  accessLog?: 'on' | 'off';
}

/** docs/nginx.example.conf, the documented production server block. */
export const EXAMPLE_CONFIG = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'nginx.example.conf');

/**
 * The documented configuration with this machine's ports and paths, so what tests and the bench run
 * is what operators copy. Each replaced line must be there exactly once: if the example changes
 * shape, this fails instead of quietly running something else.
 */
export async function exampleConfig(options: ExampleConfigOptions): Promise<string> {
  let text = await readFile(EXAMPLE_CONFIG, 'utf8');
  const replace = (line: RegExp, by: string) => {
    const matches = text.match(new RegExp(line.source, 'gm'))?.length ?? 0;
    if (matches !== 1) throw new Error(`${EXAMPLE_CONFIG}: expected one line matching ${line}, found ${matches}`);
    text = text.replace(new RegExp(line.source, 'm'), by);
  };
  replace(/^(\s*)server 127\.0\.0\.1:3000;.*$/, options.upstreamPorts.map((port) => `    server 127.0.0.1:${port};`).join('\n'));
  replace(/^(\s*)listen 80;.*$/, `    listen 127.0.0.1:${options.listenPort};`);
  replace(/^(\s*)access_log \/var\/log\/nginx\/\S+;.*$/, options.accessLog === 'off' ? '    access_log off;' : '    access_log logs/hfs.access.log;');
  replace(/^(\s*)alias \/var\/lib\/hosted-file-service\/files\/;.*$/, `        alias ${path.join(options.dataDir, 'files')}/;`);
  return text;
}
