import type { Sample } from './recorder.js';

const WIDTH = 1400;
const PANEL = 420;
const LEFT = 80;
const RIGHT = 300;
const TOP = 60;
const GAP = 70;
const PLOT_W = WIDTH - LEFT - RIGHT;
const HEIGHT = TOP + 30 + 2 * PANEL + GAP + 50;

type Series = { name: string; points: [number, number][]; dashed?: boolean; dots?: boolean; colour?: string };

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Distinct hues, spread by the golden angle. */
const colour = (i: number) => `hsl(${Math.round((i * 137.5) % 360)}, 65%, ${i % 2 ? 38 : 48}%)`;

function seriesOf(samples: readonly Sample[], kind: Sample['kind'], value: (s: Sample) => number | undefined): Series[] {
  const byName = new Map<string, [number, number][]>();
  for (const s of samples) {
    const v = value(s);
    if (s.kind !== kind || v === undefined) continue;
    const points = byName.get(s.name) ?? [];
    byName.set(s.name, points);
    points.push([s.t / 60, v]);
  }
  return [...byName].sort(([a], [b]) => a.localeCompare(b)).map(([name, points]) => ({ name, points }));
}

/** One panel: axes, grid, the warm-up boundary, a polyline per series and their legend. */
function panel(top: number, title: string, series: Series[], minutes: number, warmupMinutes: number, y: { log: boolean; max: number; unit: string }): string {
  const x = (m: number) => LEFT + (m / minutes) * PLOT_W;
  const low = y.log ? 1 : 0;
  const scale = (v: number) => (y.log ? Math.log10(Math.max(v, low)) / Math.log10(y.max) : v / y.max);
  const yOf = (v: number) => top + PANEL - scale(v) * PANEL;
  const parts = [`<text x="${LEFT}" y="${top - 12}" font-size="18" font-weight="bold">${escape(title)}</text>`];
  const ticks = y.log ? Array.from({ length: Math.round(Math.log10(y.max)) + 1 }, (_, i) => 10 ** i) : Array.from({ length: 6 }, (_, i) => (y.max * i) / 5);
  for (const t of ticks) {
    parts.push(`<line x1="${LEFT}" x2="${LEFT + PLOT_W}" y1="${yOf(t)}" y2="${yOf(t)}" stroke="#ddd"/>`);
    parts.push(`<text x="${LEFT - 8}" y="${yOf(t) + 4}" font-size="12" text-anchor="end">${Number.isInteger(t) ? t : t.toFixed(1)}</text>`);
  }
  const step = Math.max(1, Math.ceil(minutes / 10));
  for (let m = 0; m <= minutes + 1e-9; m += step) {
    parts.push(`<line x1="${x(m)}" x2="${x(m)}" y1="${top}" y2="${top + PANEL}" stroke="#eee"/>`);
    parts.push(`<text x="${x(m)}" y="${top + PANEL + 18}" font-size="12" text-anchor="middle">${m}</text>`);
  }
  parts.push(`<text x="${LEFT + PLOT_W / 2}" y="${top + PANEL + 36}" font-size="13" text-anchor="middle">minutes</text>`);
  parts.push(`<text x="20" y="${top + PANEL / 2}" font-size="13" text-anchor="middle" transform="rotate(-90 20 ${top + PANEL / 2})">${escape(y.unit)}</text>`);
  parts.push(`<rect x="${LEFT}" y="${top}" width="${PLOT_W}" height="${PANEL}" fill="none" stroke="#555"/>`);
  parts.push(`<line x1="${x(warmupMinutes)}" x2="${x(warmupMinutes)}" y1="${top}" y2="${top + PANEL}" stroke="#888" stroke-dasharray="6 4"/>`);
  parts.push(`<text x="${x(warmupMinutes) + 4}" y="${top + 14}" font-size="11" fill="#666">warm-up ends</text>`);
  const lineHeight = Math.min(18, (PANEL - 10) / Math.max(1, series.length));
  series.forEach((s, i) => {
    const hue = s.colour ?? colour(i);
    const xy = s.points.map(([m, v]) => [x(m).toFixed(1), yOf(Math.min(v, y.max)).toFixed(1)] as const);
    const dash = s.dashed ? ' stroke-dasharray="5 3"' : '';
    const ly = top + 8 + i * lineHeight;
    if (s.dots) {
      for (const [px, py] of xy) parts.push(`<circle cx="${px}" cy="${py}" r="3.5" fill="${hue}" stroke="black" stroke-width="0.8"/>`);
      parts.push(`<circle cx="${LEFT + PLOT_W + 24}" cy="${ly}" r="4" fill="${hue}" stroke="black" stroke-width="0.8"/>`);
    } else {
      parts.push(`<polyline points="${xy.map((p) => p.join(',')).join(' ')}" fill="none" stroke="${hue}" stroke-width="1.8"${dash}/>`);
      parts.push(`<line x1="${LEFT + PLOT_W + 14}" x2="${LEFT + PLOT_W + 34}" y1="${ly}" y2="${ly}" stroke="${hue}" stroke-width="3"${dash}/>`);
    }
    parts.push(`<text x="${LEFT + PLOT_W + 40}" y="${ly + 4}" font-size="${Math.min(13, lineHeight - 2)}">${escape(s.name)}</text>`);
  });
  return parts.join('\n');
}

/**
 * The soak's plot as SVG: RSS per process, also right after each full collection (top), and p99 per
 * window on a log scale of the routes named (bottom; every route is in the CSV, two dozen lines
 * would be unreadable).
 */
export function soakSvg(samples: readonly Sample[], title: string, warmupMinutes: { latency: number; memory: number }, routes: readonly string[]): string {
  // The last window closes a moment after the traffic stops.
  const minutes = Math.max(warmupMinutes.memory, ...samples.map((s) => s.t / 60));
  const processes = seriesOf(samples, 'rss', (s) => s.rssMb).map((s, i) => ({ ...s, colour: colour(i) }));
  const rss = [
    ...processes,
    // In the colour of the process's line, outlined.
    ...seriesOf(samples, 'rss-collected', (s) => s.rssMb).map((s) => ({ ...s, name: `${s.name} after a full collection`, dots: true, colour: processes.find((p) => p.name === s.name)?.colour })),
    ...seriesOf(samples, 'heap', (s) => s.heapMb).map((s) => ({ ...s, name: `${s.name} V8 heap used`, dashed: true })),
    ...seriesOf(samples, 'cache', (s) => s.heapMb).map((s) => ({ ...s, name: `${s.name} hot-file cache`, dashed: true })),
  ];
  const p99 = seriesOf(samples, 'route', (s) => s.p99Ms).filter((s) => routes.includes(s.name));
  const rssMax = Math.max(100, ...rss.flatMap((s) => s.points.map(([, v]) => v))) * 1.1;
  const p99Max = 10 ** Math.ceil(Math.log10(Math.max(10, ...p99.flatMap((s) => s.points.map(([, v]) => v)))));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" font-family="DejaVu Sans, sans-serif">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${LEFT}" y="28" font-size="20" font-weight="bold">${escape(title)}</text>`,
    panel(TOP + 30, 'RSS per process (dots: right after a full collection; dashed: V8 heap in use, hot-file cache)', rss, minutes, warmupMinutes.memory, { log: false, max: Math.ceil(rssMax / 50) * 50, unit: 'MB' }),
    panel(TOP + 30 + PANEL + GAP, 'p99 per 10 s window (main routes; all in samples.csv)', p99, minutes, warmupMinutes.latency, { log: true, max: p99Max, unit: 'ms (log)' }),
    '</svg>',
  ].join('\n');
}

/** The SVG rasterised by sharp (librsvg): no plotting dependency. */
export async function soakPng(svg: string): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  return sharp(Buffer.from(svg)).png().toBuffer();
}
