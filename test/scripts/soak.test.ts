import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { P99_TARGETS_MS, p99Targets, passed, performanceChecks } from '../../scripts/bench/lib/soak/checks.js';
import { CSV_HEADER, type Sample } from '../../scripts/bench/lib/soak/recorder.js';
import { needsPostgres, testRedisUrl } from '../helpers/engines.js';
import { ensureBuilt, runScript } from '../helpers/run-script.js';

interface Summary {
  passed: boolean;
  checks: { name: string; kind: string; value: number; passed: boolean; detail?: string }[];
  problems: string[];
}

// The soak itself under test: a short run must finish with every correctness check passing and
// leave its CSV and plot. Its RSS slopes and p99 targets are for a quiet machine, not asserted here.
describe('npm run bench -- soak --minutes 2', function () {
  this.timeout(10 * 60_000);
  let out: string;
  before(() => ensureBuilt());
  beforeEach(async () => {
    out = await mkdtemp(path.join(tmpdir(), 'hfs-soak-test-'));
  });
  afterEach(() => rm(out, { recursive: true, force: true }));

  it('runs the Procfile topology under mixed traffic, passes every correctness check and writes its samples and plot', async function () {
    needsPostgres(this, process.env.TEST_DATABASE_URL);
    const run = await runScript(
      'scripts/bench/index.ts',
      ['soak', '--minutes', '2', '--out', out],
      { BENCH_DATABASE_URL: process.env.TEST_DATABASE_URL, BENCH_REDIS_URL: testRedisUrl() },
      9 * 60_000,
    );
    expect(run.code, `${run.stdout.slice(-6000)}\n${run.stderr.slice(-3000)}`).to.equal(0);

    const summary = JSON.parse(await readFile(path.join(out, 'summary.json'), 'utf8')) as Summary;
    const correctness = summary.checks.filter((c) => c.kind === 'correctness');
    expect(correctness.map((c) => c.name)).to.include.members([
      '5xx answers',
      'unexpected answers and client-side faults',
      'accepted uploads present: bytes differ or unreadable',
      'quotas and counters not equal to the rows',
      'storage reconcile: orphans, missing, wrong size',
      'storage verify: digests differ, objects missing',
    ]);
    expect(correctness.filter((c) => !c.passed), JSON.stringify(summary.problems)).to.deep.equal([]);
    expect(summary.passed).to.equal(true);

    const [header, ...lines] = (await readFile(path.join(out, 'samples.csv'), 'utf8')).trimEnd().split('\n');
    expect(header).to.equal(CSV_HEADER);
    const rows = lines.map((line) => line.split(','));
    for (const row of rows) expect(row, row.join(',')).to.have.length(CSV_HEADER.split(',').length);
    const names = (kind: string) => new Set(rows.filter((r) => r[1] === kind).map((r) => r[2]));
    expect([...names('rss')]).to.include.members(['web-1', 'web-2', 'worker', 'vision']);
    // And right after a full collection, forced through each process's inspector.
    expect([...names('rss-collected')]).to.include.members(['web-1', 'web-2', 'worker', 'vision']);
    // The hot-file caches are sampled (the plot shows them fill).
    expect([...names('cache')]).to.include.members(['web-1', 'web-2']);
    expect([...names('route')]).to.include.members([
      'upload-multipart',
      'upload-tus',
      'upload-tus-resumed',
      'upload-url',
      'upload-mcp',
      'serve-hot',
      'serve-cold',
      'rendition',
      'dashboard',
      'dashboard-search',
      'rename',
      'move',
      'delete',
      'serve-expired',
      'share-link-view',
      'poll-vote',
      'sse-delivery',
    ]);

    const { default: sharp } = await import('sharp');
    const plot = await sharp(await readFile(path.join(out, 'soak.png'))).metadata();
    expect(plot).to.include({ format: 'png', width: 1400 });
  });

  describe('RSS slope', () => {
    const rss = (t: number, mb: number, kind: Sample['kind'] = 'rss'): Sample => ({ t, kind, name: 'web-1', rssMb: mb });
    // A sawtooth of uncollected garbage (100 MB, every 9 minutes) that ends high, over a flat floor.
    const sawtooth = Array.from({ length: 240 }, (_, i) => rss(i * 5, 280 + ((i * 5) % 540) * (100 / 540)));
    const everySample = (samples: Sample[]) => performanceChecks(samples, new Map(), 600).find((c) => c.name === 'RSS slope after warm-up: web-1')!;
    const verdict = (samples: Sample[]) => performanceChecks(samples, new Map(), 600).find((c) => c.name === 'RSS slope after warm-up, right after full collections: web-1')!;

    it('is judged right after full collections, not on the sawtooth between them', () => {
      const flat = Array.from({ length: 7 }, (_, i) => rss(600 + i * 90, 281 + (i % 2), 'rss-collected'));
      // Every 5 s sample climbs with where the run ends in a tooth: that slope alone would fail.
      expect(everySample([...sawtooth, ...flat]).value).to.be.greaterThan(5);
      expect(verdict([...sawtooth, ...flat])).to.include({ kind: 'performance' }).and.satisfy(passed);
      const growing = flat.map((s, i) => ({ ...s, rssMb: 281 + i * 2 }));
      expect(verdict([...sawtooth, ...growing]).value).to.be.closeTo(13.3, 0.1);
      expect(verdict([...sawtooth, ...growing])).not.to.satisfy(passed);
    });

    it('falls back to every sample when fewer than three collections came after warm-up', () => {
      const samples = [...sawtooth, rss(700, 281, 'rss-collected'), rss(790, 281, 'rss-collected')];
      expect(verdict(samples).detail).to.match(/^2 collections: every 5 s instead/);
      expect(verdict(samples).value).to.equal(everySample(samples).value).and.not.equal(0);
    });
  });

  it('gives the routes that hash a password their own target plus three times the hash’s measured cost', () => {
    const targets = p99Targets(110);
    expect(targets).to.include({ 'share-link-view-password': P99_TARGETS_MS['share-link-view']! + 330, 'share-link-create-password': P99_TARGETS_MS['share-link-create']! + 330 });
    expect(targets['serve-hot']).to.equal(P99_TARGETS_MS['serve-hot']);
  });
});
