import { engineBanner, skippedForEngine, startEngines, stopEngines } from './engines.js';

// Mocha global fixtures: engines start once before all files and stop after all of them. The run
// says which database engine it used first and last, and which tests that engine could not run.
export async function mochaGlobalSetup() {
  await startEngines();
  process.stdout.write(`\n  ${engineBanner()}\n`);
}

export async function mochaGlobalTeardown() {
  const skipped = skippedForEngine();
  process.stdout.write(`\n  ${engineBanner()}\n`);
  if (skipped.length > 0) {
    process.stdout.write(`  SKIPPED ON PGLITE (${skipped.length}), they need PostgreSQL:\n${skipped.map((t) => `    - ${t}\n`).join('')}`);
  }
  await stopEngines();
}
