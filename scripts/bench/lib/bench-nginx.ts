import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startNginx, type RunningNginx } from '../../lib/nginx.js';
import { onCleanup } from './cleanup.js';
import { freePort, tempDir } from './processes.js';

// nginx as the serve bench runs it (a default static server, or the example config in front of the
// service), and what the logs of a run say.

/** A server block as a default static server has it: the copies under the service's own paths. */
export function staticServer(port: number, dir: string, accessLog: 'on' | 'off'): string {
  return `server {
    listen 127.0.0.1:${port};
    ${accessLog === 'off' ? 'access_log off;' : ''}
    sendfile on;
    tcp_nopush on;
    location /u/bench/ { alias ${dir}/; }
  }`;
}

/** nginx's error log and access log (the launcher's default name, or the example config's). */
export function logsOf(nginx: RunningNginx, accessLog = 'access.log'): string[] {
  return [path.join(nginx.dir, 'logs', 'error.log'), path.join(nginx.dir, 'logs', accessLog)];
}

export async function launchNginx(http: (port: number) => string | Promise<string>, workerProcesses: number): Promise<RunningNginx> {
  const port = await freePort();
  const nginx = await startNginx({ port, http: await http(port), workerProcesses, parent: (await tempDir('hfs-bench-nginx-')).dir });
  onCleanup(() => nginx.stop());
  return nginx;
}

/** What a log says besides requests answered with 2xx or 3xx: its last other lines, and the requests answered otherwise. */
export async function complaints(logFile: string): Promise<string> {
  const text = await readFile(logFile, 'utf8').catch(() => '');
  // The service's request lines and nginx's access lines (combined format).
  const isRequest = (line: string) => line.includes('"msg":"request"') || /^\S+ - \S+ \[/.test(line);
  const lines = text.split('\n').filter(Boolean);
  const failed = lines.filter((line) => isRequest(line) && (/"status":[45]\d\d/.test(line) || /" [45]\d\d \d+ /.test(line)));
  const other = lines.filter((line) => !isRequest(line));
  return [...other.slice(-10), `${failed.length} requests answered with 4xx or 5xx${failed.length ? `, the last: ${failed.at(-1)}` : ''}`].join('\n');
}
