import { expect } from 'chai';
import { UploadLoad } from '../../shared/upload-load.js';

describe('UploadLoad', () => {
  it('is busy from the given number of uploads in flight on, and says so once per change', () => {
    const load = new UploadLoad(2);
    const changes: boolean[] = [];
    load.onChange((busy) => changes.push(busy));
    const first = load.enter();
    expect([load.uploads, load.busy]).to.deep.equal([1, false]);
    const second = load.enter();
    const third = load.enter();
    expect([load.uploads, load.busy]).to.deep.equal([3, true]);
    third();
    expect(load.busy).to.equal(true);
    second();
    first();
    expect([load.uploads, load.busy]).to.deep.equal([0, false]);
    expect(changes).to.deep.equal([true, false]);
  });

  it('counts an upload that leaves twice only once', () => {
    const load = new UploadLoad(1);
    const other = load.enter();
    const leave = load.enter();
    leave();
    leave();
    expect(load.uploads).to.equal(1);
    other();
    expect(load.uploads).to.equal(0);
  });

  it('stops telling a listener that unsubscribed', () => {
    const load = new UploadLoad(1);
    const changes: boolean[] = [];
    const unsubscribe = load.onChange((busy) => changes.push(busy));
    load.enter()();
    unsubscribe();
    load.enter()();
    expect(changes).to.deep.equal([true, false]);
  });

  it('is quiet at once without a burst, and as soon as a burst ends', async () => {
    const load = new UploadLoad(1);
    await load.quiet(60_000);
    const leave = load.enter();
    let quiet = false;
    const waiting = load.quiet(60_000).then(() => (quiet = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(quiet).to.equal(false);
    leave();
    await waiting;
    expect(quiet).to.equal(true);
  });

  it('stops waiting for quiet after the given time while the burst goes on', async () => {
    const load = new UploadLoad(1);
    const leave = load.enter();
    const started = Date.now();
    await load.quiet(30);
    expect(Date.now() - started).to.be.at.least(15);
    expect(load.busy).to.equal(true);
    leave();
  });
});
