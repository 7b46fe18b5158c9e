import { expect } from 'chai';
import type { FileRow } from '../../shared/db/schema.js';
import { FileCache } from '../../shared/services/file-cache.js';

const row = (filename: string) => ({ id: filename, filename }) as unknown as FileRow;

describe('FileCache', () => {
  const live = () => {
    const cache = new FileCache();
    cache.resume();
    return cache;
  };

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
    await cache.through('k', async () => row('a.png'));
    expect(cache.get('k')!.filename).to.equal('a.png');
    cache.suspend();
    expect(cache.get('k')).to.equal(undefined);
    await cache.through('k', async () => row('a.png'));
    expect(cache.get('k')).to.equal(undefined);
  });
});
