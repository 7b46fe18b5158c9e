/** One line of a benchmark's report: a measured value, and the target it is held to if any. */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  /** e.g. ['>=', 0.9]; the row reports PASS or MISS against it */
  target?: ['>=' | '<=', number];
}

export function verdict(row: BenchRow): string {
  if (!row.target) return '';
  const [op, limit] = row.target;
  const ok = op === '>=' ? row.value >= limit : row.value <= limit;
  return `${ok ? 'PASS' : 'MISS'} (target ${op} ${limit})`;
}

export function printRows(title: string, rows: BenchRow[]) {
  process.stdout.write(`\n${title}\n`);
  const width = Math.max(...rows.map((r) => r.name.length));
  for (const row of rows) {
    const value = Number.isInteger(row.value) ? String(row.value) : row.value.toFixed(2);
    process.stdout.write(`  ${row.name.padEnd(width)}  ${value.padStart(10)} ${row.unit.padEnd(6)} ${verdict(row)}\n`);
  }
}
