import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { MALLOC_TUNABLES } from '../../scripts/lib/malloc-tunables.js';

const run = promisify(execFile);

/** The commands that start a process streaming file bodies: npm's scripts and the Procfile's lines. */
async function startCommands(): Promise<Record<string, string>> {
  const { scripts } = JSON.parse(await readFile('package.json', 'utf8')) as { scripts: Record<string, string> };
  const procfile = Object.fromEntries(
    (await readFile('Procfile', 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => [`Procfile ${line.slice(0, line.indexOf(':'))}`, line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { 'npm start': scripts.start!, 'npm run web': scripts.web!, 'npm run worker': scripts.worker!, ...procfile };
}

/** What GLIBC_TUNABLES the started program sees: the command's program swapped for one that prints it. */
async function tunablesSeenBy(command: string, env: NodeJS.ProcessEnv): Promise<string> {
  const program = command.replace(/(?:npx )?tsx \S+$/, `"${process.execPath}" -p "process.env.GLIBC_TUNABLES ?? ''"`);
  expect(program, command).to.not.equal(command);
  const { stdout } = await run('sh', ['-c', program], { env });
  return stdout.trim();
}

describe('glibc allocator setting of the processes that stream file bodies', () => {
  it('npm start, npm run web|worker and the Procfile give the program the trim threshold, unless the operator set GLIBC_TUNABLES', async () => {
    const commands = await startCommands();
    const streaming = ['npm start', 'npm run web', 'npm run worker', 'Procfile web', 'Procfile worker', 'Procfile vision'];
    expect(Object.keys(commands)).to.include.members(streaming);
    const { GLIBC_TUNABLES: _ignored, ...withoutTunables } = process.env;
    for (const name of streaming) {
      expect(await tunablesSeenBy(commands[name]!, withoutTunables), name).to.equal(MALLOC_TUNABLES);
      expect(await tunablesSeenBy(commands[name]!, { ...withoutTunables, GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }), name).to.equal('glibc.malloc.arena_max=2');
    }
  });
});
