import { expect } from 'chai';
import { spawn } from 'node:child_process';

/**
 * The growth factor V8 applied at a full GC in a fresh process that called setStreamingHeapGrowth,
 * read from its own GC trace ("[HeapController] Limit: old size: …, new limit: … (3.0)").
 */
function growthAfterFullGc(nodeFlags: string[]): Promise<number> {
  const program = "const { setStreamingHeapGrowth } = await import('./shared/heap-growth.ts'); setStreamingHeapGrowth(); globalThis.gc();";
  const child = spawn(process.execPath, [...nodeFlags, '--trace-gc-verbose', '--expose-gc', '--import', 'tsx', '--input-type=module', '-e', program], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      const factors = [...out.matchAll(/\[HeapController\] Limit: .*\((\d+\.\d+)\)/g)].map((m) => Number(m[1]));
      if (code !== 0 || factors.length === 0) reject(new Error(`exit ${code}, no heap limit in the trace:\n${out.slice(-2000)}`));
      else resolve(factors.at(-1)!);
    });
  });
}

describe('setStreamingHeapGrowth (web and worker processes)', function () {
  this.timeout(30_000);

  it('lets the old generation grow to three times its live size before the next full GC', async () => {
    // V8 alone would pick as little as 1.1 for a process that allocates slowly, which made every
    // 32 MB of streamed upload chunks cost a full mark-compact (README, Benchmarks).
    expect(await growthAfterFullGc([])).to.equal(3);
  });

  it("leaves an operator's own --heap-growing-percent alone", async () => {
    expect(await growthAfterFullGc(['--heap-growing-percent=50'])).to.equal(1.5);
  });
});
