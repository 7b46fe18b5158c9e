import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every TypeScript module under `dir` (relative to the repository), with what it imports. */
async function modulesUnder(dir: string): Promise<{ file: string; imports: string[] }[]> {
  const entries = await readdir(path.join(ROOT, dir), { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile() && /\.(c|m)?ts$/.test(e.name)).map((e) => path.join(e.parentPath, e.name));
  return Promise.all(
    files.map(async (file) => {
      const text = await readFile(file, 'utf8');
      const imports = [...text.matchAll(/\bfrom\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => path.resolve(path.dirname(file), m[1] ?? m[2]!));
      return { file: path.relative(ROOT, file), imports: imports.map((i) => path.relative(ROOT, i)) };
    }),
  );
}

describe('the seams between layers', () => {
  it('api/ reaches stored data only through services: no module imports shared/repositories, types included', async () => {
    const offending = (await modulesUnder('api')).filter((m) => m.imports.some((i) => i.startsWith('shared/repositories/')));
    expect(offending.map((m) => m.file)).to.deep.equal([]);
  });

  it('SQLSTATE codes are read by the repositories alone: nothing else imports pg-errors', async () => {
    const modules = (await Promise.all(['api', 'shared', 'workers', 'scripts'].map(modulesUnder))).flat();
    const offending = modules.filter(
      (m) => !m.file.startsWith('shared/repositories/') && m.imports.some((i) => i.startsWith('shared/repositories/pg-errors')),
    );
    expect(offending.map((m) => m.file)).to.deep.equal([]);
  });

  it('repositories report outcomes and services word them: no repository imports AppError', async () => {
    const offending = (await modulesUnder('shared/repositories')).filter((m) => m.imports.includes('shared/errors.js'));
    expect(offending.map((m) => m.file)).to.deep.equal([]);
  });

  it('shared/ is used by api/ and workers/ and never imports them', async () => {
    const offending = (await modulesUnder('shared')).filter((m) => m.imports.some((i) => i.startsWith('api/') || i.startsWith('workers/')));
    expect(offending.map((m) => m.file)).to.deep.equal([]);
  });

  it('services reach storage only through the driver interface, never a driver or its writer', async () => {
    const implementations = ['local.driver', 's3.driver', 'file-writer', 'tus-store'].map((name) => `shared/storage/${name}.js`);
    const offending = (await modulesUnder('shared/services')).filter((m) => m.imports.some((i) => implementations.includes(i)));
    expect(offending.map((m) => m.file)).to.deep.equal([]);
  });

  it('the README and docs link only inside the repository, to files that exist', async () => {
    const docs = ['README.md', ...(await readdir(path.join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const broken: string[] = [];
    for (const doc of docs) {
      const text = await readFile(path.join(ROOT, doc), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target!)) continue;
        const file = path.resolve(path.dirname(path.join(ROOT, doc)), target!.split('#')[0]!);
        const exists = await readFile(file).then(() => true, (err: NodeJS.ErrnoException) => err.code === 'EISDIR');
        if (path.relative(ROOT, file).startsWith('..') || !exists) broken.push(`${doc}: ${target}`);
      }
    }
    expect(broken).to.deep.equal([]);
  });
});
