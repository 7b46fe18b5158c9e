import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../helpers/ports.js';
import { ensureBuilt, launchCommand, runCommand, type ScriptResult } from '../helpers/run-script.js';

/** One line on stderr, and no stack trace: what an operator can act on. */
function expectOneLine(result: ScriptResult): string {
  expect(result.code, result.stderr).to.equal(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).to.have.length(1);
  expect(result.stderr).to.not.match(/^\s+at /m);
  return lines[0]!;
}

describe('What operators read when a process cannot start', function () {
  this.timeout(120_000);
  let dataDir: string;
  before(() => ensureBuilt());
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'hfs-operator-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  describe('NODE_ENV=production without DATABASE_URL', () => {
    for (const name of ['Procfile web', 'Procfile worker', 'npm run web']) {
      it(`${name} refuses the embedded database in one line that says to set DATABASE_URL, and exits 1`, async () => {
        const env = { NODE_ENV: 'production', DATABASE_URL: '', METRICS_PUBLIC: 'true', DATA_DIR: dataDir };
        const line = expectOneLine(await runCommand(await launchCommand(name), env));
        expect(line).to.match(/^Invalid configuration: DATABASE_URL: /).and.include('PGlite').and.include('one process').and.include('set DATABASE_URL');
      });
    }

    it('names METRICS_TOKEN and METRICS_PUBLIC on the same line when /metrics would be open', async () => {
      const line = expectOneLine(await runCommand(await launchCommand('Procfile web'), { NODE_ENV: 'production', DATABASE_URL: '', METRICS_PUBLIC: '', METRICS_TOKEN: '', DATA_DIR: dataDir }));
      expect(line).to.include('DATABASE_URL').and.include('METRICS_TOKEN').and.include('METRICS_PUBLIC');
    });
  });

  describe('a port that is taken', () => {
    let taken: Server;
    let port: number;
    beforeEach(async () => {
      port = await freePort();
      taken = createServer();
      await new Promise<void>((resolve) => taken.listen(port, '0.0.0.0', resolve));
    });
    afterEach(() => new Promise<void>((resolve) => taken.close(() => resolve())));

    const cases = [
      { name: 'Procfile web', variable: 'PORT' },
      { name: 'Procfile vision', variable: 'VISION_PORT' },
      { name: 'npm start', variable: 'PORT' },
      { name: 'npm start', variable: 'VISION_PORT' },
    ];
    for (const { name, variable } of cases) {
      it(`${name} with ${variable} taken says which port and which variable to change, and exits 1`, async () => {
        const env = { DATA_DIR: dataDir, DATABASE_URL: '', PORT: String(await freePort()), VISION_PORT: String(await freePort()), [variable]: String(port) };
        const line = expectOneLine(await runCommand(await launchCommand(name), env));
        expect(line).to.equal(`Port ${port} is already in use: stop what listens there, or set ${variable} to a free port`);
      });
    }
  });
});
