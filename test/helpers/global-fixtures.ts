import { startEngines, stopEngines } from './engines.js';

// Mocha global fixtures: engines start once before all files and stop after all of them.
export async function mochaGlobalSetup() {
  await startEngines();
}

export async function mochaGlobalTeardown() {
  await stopEngines();
}
