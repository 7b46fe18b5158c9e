import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { ensureBuilt, launchCommand, runCommand } from '../helpers/run-script.js';

const PROCFILE = ['Procfile web', 'Procfile worker', 'Procfile vision', 'Procfile release'];
const NPM = ['npm start', 'npm run web', 'npm run worker', 'npm run vision', 'npm run release', 'npm run admin'];
// The processes that stream file bodies (npm start is web and workers in one).
const STREAMING = ['Procfile web', 'Procfile worker', 'npm start', 'npm run web', 'npm run worker'];
const TRIM_THRESHOLD = 'glibc.malloc.trim_threshold=67108864:glibc.malloc.mmap_threshold=4194304:glibc.malloc.arena_max=2';
const COMPILED_ENTRY = /\bnode(?: --[\w-]+(?:=\S+)?)* (dist\/\S+\.js)$/;

/** What the program a command starts sees: its compiled entry swapped for one that prints its environment and flags. */
async function seenBy(name: string, env: Record<string, string | undefined>): Promise<{ tunables: string | null; execArgv: string[] }> {
  const command = await launchCommand(name);
  const program = command.replace(/dist\/\S+\.js$/, `-p 'JSON.stringify({ tunables: process.env.GLIBC_TUNABLES ?? null, execArgv: process.execArgv.slice(0, -2) })'`);
  const result = await runCommand(program, env);
  expect(result.code, `${name}: ${result.stderr}`).to.equal(0);
  return JSON.parse(result.stdout);
}

describe('How processes start: the Procfile and npm scripts', function () {
  this.timeout(120_000);
  before(() => ensureBuilt());

  it('run compiled JavaScript with node, never tsx or npx, and the entry exists after a build', async () => {
    for (const name of [...PROCFILE, ...NPM]) {
      const command = await launchCommand(name);
      expect(command, name).to.match(COMPILED_ENTRY);
      expect(command, name).to.not.match(/\b(tsx|npx)\b/);
      expect(existsSync(COMPILED_ENTRY.exec(command)![1]!), `${name}: ${command}`).to.equal(true);
    }
  });

  it('build dist/ first in the npm scripts, only when it is stale', async () => {
    for (const name of NPM) expect(await launchCommand(name), name).to.match(/^node scripts\/build\.mjs --if-stale && /);
  });

  it("give the streaming processes V8's heap growth and glibc's trim threshold, unless the operator set GLIBC_TUNABLES", async () => {
    const { GLIBC_TUNABLES: _ignored, ...withoutTunables } = process.env;
    for (const name of STREAMING) {
      const seen = await seenBy(name, withoutTunables);
      expect(seen.execArgv, name).to.deep.equal(['--heap-growing-percent=200']);
      expect(seen.tunables, name).to.equal(TRIM_THRESHOLD);
      expect((await seenBy(name, { ...withoutTunables, GLIBC_TUNABLES: 'glibc.malloc.arena_max=4' })).tunables, name).to.equal('glibc.malloc.arena_max=4');
    }
    expect((await seenBy('Procfile vision', withoutTunables)).tunables).to.equal(TRIM_THRESHOLD);
  });
});
