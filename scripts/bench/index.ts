import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cleanUpAll } from './lib/cleanup.js';
import { type BenchRow, printRows, verdict } from './report.js';

// `npm run bench` runs every scripts/bench/*.bench.ts; `npm run bench -- upload` only those named.
// Benchmarks report against baselines measured in the same run; a missed target never fails the
// process, a benchmark that crashes does (after the others ran). Options (`--minutes 30`, `--out DIR`)
// go to every benchmark run; those that take none ignore them.
const dir = path.dirname(fileURLToPath(import.meta.url));
const { values: options, positionals: wanted } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: { minutes: { type: 'string' }, out: { type: 'string' } },
});
// The soak runs for half an hour: only when named.
const NAMED_ONLY = ['soak'];
const modules = (await readdir(dir))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => (wanted.length === 0 ? !NAMED_ONLY.includes(f.replace('.bench.ts', '')) : wanted.includes(f.replace('.bench.ts', ''))));
if (modules.length === 0) process.stderr.write(`no benchmark named ${wanted.join(', ')}\n`);

// Stopped by a signal: stop the started services, drop their databases and temp dirs first.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanUpAll().then(() => process.exit(signal === 'SIGINT' ? 130 : 143)));
}

const summary: Record<string, { value: number; unit: string; verdict: string } | { error: string }> = {};
for (const file of modules) {
  const name = file.replace('.bench.ts', '');
  try {
    const bench = (await import(path.join(dir, file))) as { run(opts: typeof options): Promise<{ title: string; rows: BenchRow[] }> };
    const { title, rows } = await bench.run(options);
    printRows(title, rows);
    for (const row of rows) summary[`${title}: ${row.name}`] = { value: Number(row.value.toFixed(2)), unit: row.unit, verdict: verdict(row) };
  } catch (err) {
    process.stderr.write(`\n${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    summary[name] = { error: err instanceof Error ? err.message : String(err) };
    process.exitCode = 1;
  } finally {
    await cleanUpAll();
  }
}
process.stdout.write(`\n${JSON.stringify(summary)}\n`);
