import { expect } from 'chai';
import type { FileRow } from '../../shared/db/schema.js';
import { FileCache } from '../../shared/services/files/file-cache.js';

const row = (filename: string) => ({ id: filename, filename }) as unknown as FileRow;

describe('FileCache', () => {
  /** A cache whose subscription has just proved (a heartbeat) that it has read every change so far. */
  const live = () => {
    const cache = new FileCache();
    cache.resume();
    confirmNow(cache);
    return cache;
  };
  const confirmNow = (cache: FileCache, forMs = 60_000) => cache.confirm(performance.now(), performance.now() + forMs);

  it('serves a loaded row from memory until it is invalidated', async () => {
    const cache = live();
    let loads = 0;
    const load = async () => (loads++, row('a.png'));
    await cache.through('k', load);
    await cache.through('k', load);
    expect(loads).to.equal(1);
    cache.invalidate(['k']);
    await cache.through('k', load);
    expect(loads).to.equal(2);
  });

  it('does not keep a row whose lookup was in flight while an invalidation arrived', async () => {
    const cache = live();
    let release!: () => void;
    const inFlight = cache.through('k', () => new Promise<FileRow>((resolve) => (release = () => resolve(row('old.png')))));
    cache.invalidate(['k']);
    release();
    expect((await inFlight)!.filename).to.equal('old.png');
    expect(cache.get('k')).to.equal(undefined);
  });

  it('caches nothing before it is subscribed, and forgets everything when the subscription drops', async () => {
    const cache = new FileCache();
    await cache.through('k', async () => row('a.png'));
    expect(cache.get('k')).to.equal(undefined);
    cache.resume();
    confirmNow(cache);
    await cache.through('k', async () => row('a.png'));
    expect(cache.get('k')!.filename).to.equal('a.png');
    cache.suspend();
    expect(cache.get('k')).to.equal(undefined);
    await cache.through('k', async () => row('a.png'));
    expect(cache.get('k')).to.equal(undefined);
  });

  it('answers from memory only while its last confirmation holds, and again after the next one', async () => {
    const cache = new FileCache();
    cache.resume();
    // A confirmation that has run out already, as after a pause longer than the heartbeat's window.
    const sentAt = performance.now();
    cache.confirm(sentAt, sentAt);
    let loads = 0;
    const load = async () => (loads++, row('a.png'));
    await cache.through('k', load);
    expect(cache.get('k')).to.equal(undefined);
    await cache.through('k', load);
    expect(loads).to.equal(2);
    confirmNow(cache);
    expect(cache.get('k')!.filename).to.equal('a.png');
  });

  it('takes no confirmation sent before it last resumed (a heartbeat of the connection before)', async () => {
    const cache = new FileCache();
    const sentBefore = performance.now();
    cache.resume();
    await cache.through('k', async () => row('a.png'));
    cache.confirm(sentBefore - 1, performance.now() + 60_000);
    expect(cache.get('k')).to.equal(undefined);
    confirmNow(cache);
    expect(cache.get('k')!.filename).to.equal('a.png');
  });
  describe('misses at once for one key (a hot file while the cache cannot answer)', () => {
    /** A load that answers when told, counting how many were started. */
    const gate = (answer: FileRow | undefined) => {
      const opened: (() => void)[] = [];
      return {
        started: () => opened.length,
        load: () => new Promise<FileRow | undefined>((resolve) => opened.push(() => resolve(answer))),
        release: () => opened.splice(0).forEach((open) => open()),
      };
    };
    /** A cache that reads through: subscribed, but its last confirmation has lapsed. */
    const unconfirmed = () => {
      const cache = new FileCache();
      cache.resume();
      return cache;
    };

    it('share one load of a found row', async () => {
      const cache = unconfirmed();
      const db = gate(row('a.png'));
      const lookups = Array.from({ length: 50 }, () => cache.through('k', db.load));
      expect(db.started()).to.equal(1);
      db.release();
      for (const found of await Promise.all(lookups)) expect(found!.filename).to.equal('a.png');
    });

    it('load again after an invalidation: a load begun before it may have read the old row', async () => {
      const cache = unconfirmed();
      const before = gate(row('old.png'));
      const first = cache.through('k', before.load);
      cache.invalidate(['k']);
      const after = gate(row('new.png'));
      const second = cache.through('k', after.load);
      expect([before.started(), after.started()]).to.deep.equal([1, 1]);
      before.release();
      after.release();
      expect((await first)!.filename).to.equal('old.png');
      expect((await second)!.filename).to.equal('new.png');
    });

    it('load again when the load in flight is older than a change may go unacknowledged', async () => {
      const cache = unconfirmed();
      const slow = gate(row('a.png'));
      const first = cache.through('k', slow.load);
      await new Promise((r) => setTimeout(r, 260));
      const fresh = gate(row('a.png'));
      const second = cache.through('k', fresh.load);
      expect(fresh.started()).to.equal(1);
      slow.release();
      fresh.release();
      await Promise.all([first, second]);
    });

    it('never share a miss: an upload answered meanwhile is served at once', async () => {
      const cache = unconfirmed();
      const missing = gate(undefined);
      const first = cache.through('k', missing.load);
      const stored = gate(row('new.png'));
      const second = cache.through('k', stored.load);
      missing.release();
      await new Promise((r) => setImmediate(r));
      expect(stored.started()).to.equal(1);
      stored.release();
      expect(await first).to.equal(undefined);
      expect((await second)!.filename).to.equal('new.png');
    });
  });
});
