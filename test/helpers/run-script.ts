import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

export interface ScriptResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one of the project's TypeScript entry points as its own process, as an operator would. */
export function runScript(script: string, args: string[], env: Record<string, string | undefined>, timeoutMs = 60_000): Promise<ScriptResult> {
  return collect(spawn(process.execPath, ['--import', 'tsx', script, ...args], { env: { ...process.env, LOG_LEVEL: 'silent', ...env } }), script, timeoutMs);
}

/** The command line of a Procfile process type (`Procfile web`) or an npm script (`npm start`, `npm run admin`). */
export async function launchCommand(name: string): Promise<string> {
  const type = /^Procfile (\S+)$/.exec(name)?.[1];
  if (type) {
    const line = (await readFile('Procfile', 'utf8')).split('\n').find((l) => l.startsWith(`${type}:`));
    if (line) return line.slice(type.length + 1).trim();
  }
  const npm = /^npm (?:start|run (\S+))$/.exec(name);
  const { scripts } = JSON.parse(await readFile('package.json', 'utf8')) as { scripts: Record<string, string> };
  const command = npm && scripts[npm[1] ?? 'start'];
  if (!command) throw new Error(`no ${name}`);
  return command;
}

/** Runs a Procfile line or npm script's command with `sh -c`, as npm and Procfile runners do (exec: the pid is the service's). */
export function spawnCommand(command: string, env: Record<string, string | undefined>): ChildProcess {
  return spawn('sh', ['-c', command], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs a Procfile line or npm script's command to its end. */
export function runCommand(command: string, env: Record<string, string | undefined>, timeoutMs = 60_000): Promise<ScriptResult> {
  return collect(spawnCommand(command, env), command, timeoutMs);
}

let built: Promise<unknown> | undefined;

/** dist/ as `npm run build` makes it, built once per run when the sources changed (as npm start does). */
export function ensureBuilt(): Promise<unknown> {
  built ??= promisify(execFile)(process.execPath, ['scripts/build.mjs', '--if-stale'], { maxBuffer: 16 * 1024 * 1024 });
  return built;
}

function collect(child: ChildProcess, what: string, timeoutMs: number): Promise<ScriptResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} timed out; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
