import { expect } from 'chai';
import { scoreOf, toCategories, verdictOf } from '../../api/moderation/verdict.js';

describe('moderation verdicts', () => {
  it('folds the model\'s five classes into the spec\'s four categories', () => {
    const categories = toCategories([
      { className: 'Hentai', probability: 0.1 },
      { className: 'Porn', probability: 0.2 },
      { className: 'Sexy', probability: 0.3 },
      { className: 'Drawing', probability: 0.15 },
      { className: 'Neutral', probability: 0.25 },
    ]);
    expect(categories.hentai).to.be.closeTo(0.1, 1e-9);
    expect(categories.nsfw_real).to.be.closeTo(0.5, 1e-9);
    expect(categories.sfw_anime).to.be.closeTo(0.15, 1e-9);
    expect(categories.sfw_real).to.be.closeTo(0.25, 1e-9);
    expect(scoreOf(categories)).to.equal(60);
  });

  it('allows below 40, soft-flags from 40 to 80, hard-blocks above 80', () => {
    expect(verdictOf(0)).to.equal('allow');
    expect(verdictOf(39.99)).to.equal('allow');
    expect(verdictOf(40)).to.equal('soft_flag');
    expect(verdictOf(80)).to.equal('soft_flag');
    expect(verdictOf(80.01)).to.equal('hard_block');
    expect(verdictOf(100)).to.equal('hard_block');
  });
});
