import { expect } from 'chai';
import { randomBase62, randomHex, sha256 } from '../../shared/crypto.js';

describe('crypto helpers', () => {
  it('sha256 gives the standard hex digest', () => {
    expect(sha256('abc')).to.equal('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('random values never repeat across many pool refills, and have the asked length and alphabet', () => {
    const seen = new Set<string>();
    // 20k values of 16 bytes are 80 refills of the 4 KiB pool.
    for (let i = 0; i < 20_000; i++) {
      const value = randomHex(16);
      expect(value).to.match(/^[0-9a-f]{32}$/);
      seen.add(value);
    }
    expect(seen.size).to.equal(20_000);
    for (let i = 0; i < 2_000; i++) expect(randomBase62(12)).to.match(/^[0-9A-Za-z]{12}$/);
    // Larger than the pool: straight from the CSPRNG.
    expect(randomHex(5000)).to.have.length(10_000);
  });

  it('uses every base62 character about evenly (no modulo bias)', () => {
    const counts = new Map<string, number>();
    for (const c of Array.from({ length: 2_000 }, () => randomBase62(31)).join('')) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).to.equal(62);
    // 62,000 draws: each character expected 1,000 times; ±25 % is far outside chance.
    for (const n of counts.values()) expect(n).to.be.within(750, 1250);
  });
});
