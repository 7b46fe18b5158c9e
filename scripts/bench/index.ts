import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanUpAll } from './lib/cleanup.js';
import { type BenchRow, printRows, verdict } from './report.js';

// `npm run bench` runs every scripts/bench/*.bench.ts; `npm run bench -- upload` only those named.
// Benchmarks report against baselines measured in the same run; a missed target never fails the
// process, a benchmark that crashes does (after the others ran).
const dir = path.dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const modules = (await readdir(dir))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.includes(f.replace('.bench.ts', '')));
if (modules.length === 0) process.stderr.write(`no benchmark named ${wanted.join(', ')}\n`);

// Stopped by a signal: stop the started services, drop their databases and temp dirs first.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanUpAll().then(() => process.exit(signal === 'SIGINT' ? 130 : 143)));
}

const summary: Record<string, { value: number; unit: string; verdict: string } | { error: string }> = {};
for (const file of modules) {
  const name = file.replace('.bench.ts', '');
  try {
    const bench = (await import(path.join(dir, file))) as { run(): Promise<{ title: string; rows: BenchRow[] }> };
    const { title, rows } = await bench.run();
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
