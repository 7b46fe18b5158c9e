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
});
