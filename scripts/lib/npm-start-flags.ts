import { readFile } from 'node:fs/promises';

/**
 * The Node flags package.json's start script runs the service with, so the benchmarks and the
 * start test run `scripts/start.ts` exactly as `npm start` does.
 */
export async function npmStartFlags(): Promise<string[]> {
  const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
}
