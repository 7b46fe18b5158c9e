import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { access, constants, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

// The Inspector CLI needs Node 22.19+, the conformance suite Node 22 (fs.globSync); this project runs on Node 20.
const INSPECTOR_VERSION = '2.12.0';
const CONFORMANCE_VERSION = '0.2.0-alpha.12';
const PACKAGES = ['node@22', `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`, `@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}`];
const INSTALL_TIMEOUT_MS = 5 * 60_000;
// Where the tools live between runs; one directory per pin, so a new pin installs afresh.
const TOOLS_DIR = path.join(homedir(), '.cache', 'hfs-test-tools', `inspector-${INSPECTOR_VERSION}-conformance-${CONFORMANCE_VERSION}-node22`);

export interface McpTestTools {
  /** A Node 22 binary. */
  node: string;
  /** The Inspector's `mcp-inspector` entry point, to run with `node` (its shebang would pick Node 20). */
  inspector: string;
  /** The conformance suite's `conformance` entry point, likewise. */
  conformance: string;
}

let tools: Promise<McpTestTools> | undefined;

/**
 * Node 22, the MCP Inspector and the MCP conformance suite, installed from the npm registry once per
 * machine and reused after. Concurrent runs each install into their own directory and the first to
 * finish renames it into place, so nothing ever sees half an install. Rejects saying what failed.
 */
export function mcpTestTools(): Promise<McpTestTools> {
  tools ??= locate(TOOLS_DIR).catch(() => install());
  return tools;
}

async function locate(dir: string): Promise<McpTestTools> {
  const node = path.join(dir, 'node_modules', 'node', 'bin', 'node');
  await access(node, constants.X_OK);
  return { node, inspector: await binOf(dir, 'inspector', 'mcp-inspector'), conformance: await binOf(dir, 'conformance', 'conformance') };
}

async function binOf(dir: string, name: string, bin: string): Promise<string> {
  const packageDir = path.join(dir, 'node_modules', '@modelcontextprotocol', name);
  const { bin: bins } = JSON.parse(await readFile(path.join(packageDir, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  return path.join(packageDir, bins[bin]!);
}

async function install(): Promise<McpTestTools> {
  const parent = path.dirname(TOOLS_DIR);
  await mkdir(parent, { recursive: true });
  await pruneAbandoned(parent);
  const partial = `${TOOLS_DIR}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await mkdir(partial);
    await npmInstall(partial);
    // The node package fetches its binary in a preinstall script: check it ran.
    const found = await locate(partial).catch((err: Error) => {
      throw new Error(`npm installed ${PACKAGES.join(' ')} into ${partial} but the tools are incomplete: ${err.message}`);
    });
    const { stdout: version } = await promisify(execFile)(found.node, ['--version']);
    if (!version.startsWith('v22.')) throw new Error(`${found.node} is ${version.trim()}, not Node 22`);
    await rename(partial, TOOLS_DIR).catch((err: NodeJS.ErrnoException) => {
      // Another run got there first: its install is as good as ours.
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
    });
    return await locate(TOOLS_DIR).catch((err: Error) => {
      throw new Error(`${TOOLS_DIR} is incomplete (${err.message}): remove it to install afresh`);
    });
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
}

/** Partial installs older than any install can take were left by killed runs. */
async function pruneAbandoned(parent: string) {
  const prefix = `${path.basename(TOOLS_DIR)}.partial-`;
  for (const name of await readdir(parent)) {
    if (!name.startsWith(prefix)) continue;
    const dir = path.join(parent, name);
    const { mtimeMs } = await stat(dir).catch(() => ({ mtimeMs: Date.now() }));
    if (Date.now() - mtimeMs > 2 * INSTALL_TIMEOUT_MS) await rm(dir, { recursive: true, force: true });
  }
}

function npmInstall(prefix: string): Promise<void> {
  const args = ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', ...PACKAGES];
  return new Promise((resolve, reject) => {
    // Its own process group, so a timeout also ends the install scripts npm started.
    const child = spawn('npm', args, { cwd: prefix, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      reject(new Error(`npm ${args.join(' ')} timed out after ${INSTALL_TIMEOUT_MS / 1000} s:\n${output}`));
    }, INSTALL_TIMEOUT_MS);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot run npm to install ${PACKAGES.join(' ')}: ${err.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`npm ${args.join(' ')} exited ${code}:\n${output}`));
    });
  });
}
