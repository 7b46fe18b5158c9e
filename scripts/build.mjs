// `npm run build`: compiles the service to dist/ with tsc (tsconfig.build.json, source maps) and copies
// the files the compiled code reads beside itself. `--if-stale` builds only when the sources differ from
// those of the last build: npm start and the other run scripts call it first, so it must cost next to
// nothing when dist/ is current. Plain JavaScript, so it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = 'dist';
const BUILD_CONFIG = 'tsconfig.build.json';
// What else decides the output besides the compiled folders.
const INPUTS = ['package.json', 'tsconfig.json', BUILD_CONFIG];
// Read at run time relative to the compiled module (shared/db/client.ts finds its migrations so).
const RUNTIME_FILES = ['shared/db/migrations'];
const HASH_FILE = '.sources-hash';
// The browser app (Vite; its own tsconfig): bundled into dist/app, which the web process serves.
const APP_DIR = 'api/site/app';
const APP_OUT = 'app';
// The MCP Apps (api/mcp/apps serves them): one single-file build each, into dist/app/mcp-apps.
const MCP_APPS = ['gallery', 'file-card', 'drop-zone'];

process.chdir(root);
const { include, exclude = [] } = JSON.parse(await readFile(BUILD_CONFIG, 'utf8'));
const hash = await sourcesHash();

if (process.argv.includes('--if-stale')) {
  const built = await readFile(path.join(DIST, HASH_FILE), 'utf8').catch(() => '');
  if (built === hash) process.exit(0);
  process.stderr.write(`${DIST}/ is ${built ? 'out of date' : 'missing'}: building it (npm run build)\n`);
}
process.exit(await build());

/** SHA-256 over the path and content of every input file, so any edit, addition or removal shows. */
async function sourcesHash() {
  const files = [...INPUTS];
  for (const dir of include) files.push(...(await filesUnder(dir)));
  files.push(...(await filesUnder(APP_DIR, [])));
  const digest = createHash('sha256');
  for (const file of files.sort()) digest.update(`${file}\0`).update(await readFile(file)).update('\0');
  return digest.digest('hex');
}

async function filesUnder(dir, skipped = exclude) {
  if (skipped.includes(dir)) return [];
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const file = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await filesUnder(file, skipped)));
    else if (entry.isFile()) found.push(file);
  }
  return found;
}

/**
 * Compiles into a directory of its own and swaps it in whole: a process starting meanwhile (another
 * test run in the same tree, say) never imports a half-written dist/, and a failed build leaves the
 * last good one in place.
 */
async function build() {
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    process.stderr.write(`TypeScript is not installed, so ${DIST}/ cannot be built: run npm ci (with devDependencies), then npm run build\n`);
    return 1;
  }
  const staging = `${DIST}.build-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  // tsc reports on stdout; stderr keeps the stdout of the command that follows clean (the admin CLI's JSON).
  const compiled = spawnSync(process.execPath, [tsc, '-p', BUILD_CONFIG, '--outDir', staging], { stdio: ['ignore', 2, 2] });
  if (compiled.status !== 0) {
    await rm(staging, { recursive: true, force: true });
    process.stderr.write(`build failed: tsc exited with ${compiled.status ?? compiled.signal}; ${DIST}/ was left as it was\n`);
    return 1;
  }
  for (const dir of RUNTIME_FILES) await cp(dir, path.join(staging, dir), { recursive: true });
  try {
    const { build: bundle } = await import('vite');
    await bundle({ configFile: `${APP_DIR}/vite.config.ts`, logLevel: 'warn', build: { outDir: path.resolve(staging, APP_OUT) } });
    for (const app of MCP_APPS) {
      const input = path.resolve(APP_DIR, 'src/mcp-apps', `${app}.html`);
      await bundle({ configFile: `${APP_DIR}/vite.mcp-apps.config.ts`, logLevel: 'warn', build: { outDir: path.resolve(staging, APP_OUT, 'mcp-apps'), rollupOptions: { input } } });
    }
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    process.stderr.write(`build failed: vite: ${err?.message ?? err}; ${DIST}/ was left as it was\n`);
    return 1;
  }
  // The hash of the sources as they were when the build started: an edit made meanwhile builds again.
  await writeFile(path.join(staging, HASH_FILE), hash);
  const previous = `${DIST}.old-${process.pid}`;
  await rename(DIST, previous).catch((err) => {
    if (err.code !== 'ENOENT') throw err;
  });
  // A build that ran at the same time may have put its own in place first; it is as fresh as this one.
  await rename(staging, DIST).catch(() => rm(staging, { recursive: true, force: true }));
  await rm(previous, { recursive: true, force: true });
  return 0;
}
