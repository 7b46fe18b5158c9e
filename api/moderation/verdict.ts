/** The spec's four categories (by index) and how the model's five classes fold into them. */
export const CATEGORIES = { '0': 'hentai', '1': 'nsfw_real', '2': 'sfw_anime', '3': 'sfw_real' } as const;
export type Category = (typeof CATEGORIES)[keyof typeof CATEGORIES];
export type Categories = Record<Category, number>;
export type Verdict = 'allow' | 'soft_flag' | 'hard_block';

const CLASS_TO_CATEGORY: Record<string, Category> = {
  Hentai: 'hentai',
  Porn: 'nsfw_real',
  Sexy: 'nsfw_real',
  Drawing: 'sfw_anime',
  Neutral: 'sfw_real',
};

/** Below 40 allows, 40 to 80 soft-flags, above 80 hard-blocks (the score is 0–100). */
export const THRESHOLDS = { allow: 40, hardBlock: 80 };

export function toCategories(predictions: { className: string; probability: number }[]): Categories {
  const categories: Categories = { hentai: 0, nsfw_real: 0, sfw_anime: 0, sfw_real: 0 };
  for (const p of predictions) {
    const category = CLASS_TO_CATEGORY[p.className];
    if (category) categories[category] += p.probability;
  }
  return categories;
}

/** Score = probability of explicit content (hentai + nsfw_real), as 0–100. */
export function scoreOf(categories: Categories): number {
  return Math.round((categories.hentai + categories.nsfw_real) * 10_000) / 100;
}

export function verdictOf(score: number): Verdict {
  if (score < THRESHOLDS.allow) return 'allow';
  return score > THRESHOLDS.hardBlock ? 'hard_block' : 'soft_flag';
}

export function topCategory(categories: Categories): Category {
  return (Object.entries(categories) as [Category, number][]).reduce((a, b) => (b[1] > a[1] ? b : a))[0];
}
