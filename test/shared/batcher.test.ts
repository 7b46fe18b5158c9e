import { expect } from 'chai';
import { Batcher, oneByOne, type Outcome } from '../../shared/batcher.js';

/** A run that records each batch it gets and finishes when the test releases it. */
function gatedRuns() {
  const batches: { key: string; items: number[] }[] = [];
  const gates: (() => void)[] = [];
  const group = new Batcher<number, number>(async (key, items) => {
    batches.push({ key, items });
    await new Promise<void>((release) => gates.push(release));
    return items.map((n): Outcome<number> => (n < 0 ? { ok: false, error: new Error(`negative ${n}`) } : { ok: true, value: n * 10 }));
  });
  const releaseNext = async () => {
    while (gates.length === 0) await new Promise((r) => setImmediate(r));
    gates.shift()!();
  };
  return { group, batches, releaseNext };
}

describe('Batcher', () => {
  it('runs what one turn of the event loop submits for a key as one batch', async () => {
    const { group, batches, releaseNext } = gatedRuns();
    const results = Promise.all([1, 2, 3].map((n) => group.submit('a', n)));
    await releaseNext();
    expect(await results).to.deep.equal([10, 20, 30]);
    expect(batches).to.deep.equal([{ key: 'a', items: [1, 2, 3] }]);
  });

  it('holds what arrives during a run and sends it together as the next batch', async () => {
    const { group, batches, releaseNext } = gatedRuns();
    const first = group.submit('a', 1);
    while (batches.length === 0) await new Promise((r) => setImmediate(r));
    const later = [group.submit('a', 2), group.submit('a', 3)];
    for (let turn = 0; turn < 5; turn++) await new Promise((r) => setImmediate(r));
    expect(batches).to.have.length(1);
    await releaseNext();
    expect(await first).to.equal(10);
    await releaseNext();
    expect(await Promise.all(later)).to.deep.equal([20, 30]);
    expect(batches.map((b) => b.items)).to.deep.equal([[1], [2, 3]]);
  });

  it('runs at most the given number of items at once, the rest in the runs after', async () => {
    const sizes: number[][] = [];
    const group = new Batcher<number, number>(async (_key, items) => {
      sizes.push(items);
      return items.map((n) => ({ ok: true as const, value: n }));
    }, 2);
    expect(await Promise.all([1, 2, 3, 4, 5].map((n) => group.submit('a', n)))).to.deep.equal([1, 2, 3, 4, 5]);
    expect(sizes).to.deep.equal([[1, 2], [3, 4], [5]]);
  });

  it('runs different keys side by side', async () => {
    const { group, batches, releaseNext } = gatedRuns();
    const a = group.submit('a', 1);
    const b = group.submit('b', 2);
    while (batches.length < 2) await new Promise((r) => setImmediate(r));
    expect(batches.map((x) => x.key)).to.deep.equal(['a', 'b']);
    await releaseNext();
    await releaseNext();
    expect([await a, await b]).to.deep.equal([10, 20]);
  });

  it('fails only the items whose outcome is a failure', async () => {
    const { group, releaseNext } = gatedRuns();
    const results = [1, -2, 3].map((n) => group.submit('a', n).then((v) => v, (e: Error) => e.message));
    await releaseNext();
    expect(await Promise.all(results)).to.deep.equal([10, 'negative -2', 30]);
  });

  it('fails a whole batch whose run throws, and still runs the next one', async () => {
    let calls = 0;
    const group = new Batcher<number, number>(async (_key, items) => {
      calls += 1;
      if (calls === 1) throw new Error('database down');
      return items.map((n) => ({ ok: true as const, value: n }));
    });
    const failed = await Promise.allSettled([group.submit('a', 1), group.submit('a', 2)]);
    expect(failed.map((r) => r.status)).to.deep.equal(['rejected', 'rejected']);
    expect(await group.submit('a', 3)).to.equal(3);
  });
});

describe('oneByOne', () => {
  it('runs items in order, one at a time, and records each outcome', async () => {
    const order: string[] = [];
    const outcomes = await oneByOne([1, 2, 3], async (n) => {
      order.push(`start ${n}`);
      await new Promise((r) => setTimeout(r, 3 - n));
      order.push(`end ${n}`);
      if (n === 2) throw new Error('two');
      return n;
    });
    expect(order).to.deep.equal(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
    expect(outcomes.map((o) => (o.ok ? o.value : (o.error as Error).message))).to.deep.equal([1, 'two', 3]);
  });
});
