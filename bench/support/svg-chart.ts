// Line charts as plain SVG text, so a benchmark can draw its sweeps without a chart library. Axes are linear or
// log10 (log2 ticks read better for concurrency, so a log axis takes the tick values it should show).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../../testkit/project-root.js';

export interface Series {
  readonly name: string;
  /** [x, y] pairs; a point with a non-finite or (on a log axis) non-positive coordinate is left out. */
  readonly points: readonly (readonly [number, number])[];
  /** Index into the palette (default: the series' own index), so two series of one subject can share a colour. */
  readonly colour?: number;
  readonly dashed?: boolean;
}

export interface Axis {
  readonly label: string;
  readonly log?: boolean;
  /** Tick values, and how each is printed. */
  readonly ticks: readonly number[];
  readonly format: (value: number) => string;
}

export interface LineChart {
  readonly title: string;
  readonly x: Axis;
  readonly y: Axis;
  readonly series: readonly Series[];
}

const WIDTH = 640;
const HEIGHT = 360;
const MARGIN = { left: 70, right: 170, top: 36, bottom: 48 };
/** Colour-blind-safe (Okabe–Ito), one per series in order. */
const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9'];

const escapeXml = (text: string): string => text.replace(/[<>&"]/g, (ch) => `&#${ch.charCodeAt(0)};`);
const fixed = (value: number): string => value.toFixed(1);

/** The chart as a standalone SVG document. */
export function lineChartSvg(chart: LineChart): string {
  const usable = (axis: Axis, value: number) => Number.isFinite(value) && (!axis.log || value > 0);
  const series = chart.series.map((s) => ({
    ...s,
    points: s.points.filter(([x, y]) => usable(chart.x, x) && usable(chart.y, y)),
  }));
  const scale = (axis: Axis, from: number, to: number) => {
    const values = [...axis.ticks, ...series.flatMap((s) => s.points.map((p) => (axis === chart.x ? p[0] : p[1])))];
    const t = (v: number) => (axis.log ? Math.log10(v) : v);
    const lo = Math.min(...values.map(t));
    const hi = Math.max(...values.map(t));
    const span = hi - lo || 1;
    return (v: number) => from + ((t(v) - lo) / span) * (to - from);
  };
  const sx = scale(chart.x, MARGIN.left, WIDTH - MARGIN.right);
  const sy = scale(chart.y, HEIGHT - MARGIN.bottom, MARGIN.top);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`,
    `<text x="${WIDTH / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(chart.title)}</text>`,
  ];
  for (const tick of chart.x.ticks) {
    const x = fixed(sx(tick));
    out.push(`<line x1="${x}" x2="${x}" y1="${MARGIN.top}" y2="${HEIGHT - MARGIN.bottom}" stroke="#e5e5e5"/>`);
    out.push(
      `<text x="${x}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle">${escapeXml(chart.x.format(tick))}</text>`,
    );
  }
  for (const tick of chart.y.ticks) {
    const y = fixed(sy(tick));
    out.push(`<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y}" y2="${y}" stroke="#e5e5e5"/>`);
    out.push(
      `<text x="${MARGIN.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeXml(chart.y.format(tick))}</text>`,
    );
  }
  const midY = (MARGIN.top + HEIGHT - MARGIN.bottom) / 2;
  out.push(
    `<text x="${(MARGIN.left + WIDTH - MARGIN.right) / 2}" y="${HEIGHT - 10}" text-anchor="middle">${escapeXml(chart.x.label)}</text>`,
  );
  out.push(
    `<text x="16" y="${midY}" text-anchor="middle" transform="rotate(-90 16 ${midY})">${escapeXml(chart.y.label)}</text>`,
  );
  series.forEach((s, i) => {
    const colour = COLOURS[(s.colour ?? i) % COLOURS.length]!;
    const dash = s.dashed === true ? ' stroke-dasharray="6 4"' : '';
    const points = s.points.map(([x, y]) => `${fixed(sx(x))},${fixed(sy(y))}`);
    out.push(`<polyline fill="none" stroke="${colour}" stroke-width="2"${dash} points="${points.join(' ')}"/>`);
    for (const point of points) {
      const [cx, cy] = point.split(',');
      out.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${colour}"/>`);
    }
    const legendY = MARGIN.top + 8 + i * 18;
    out.push(
      `<line x1="${WIDTH - MARGIN.right + 12}" x2="${WIDTH - MARGIN.right + 32}" y1="${legendY}" y2="${legendY}" stroke="${colour}" stroke-width="2"${dash}/>`,
    );
    out.push(
      `<text x="${WIDTH - MARGIN.right + 38}" y="${legendY}" dominant-baseline="middle">${escapeXml(s.name)}</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** Where the bench writes its charts: BENCH_CHART_DIR, else the directory docs/benchmarks.md embeds them from. */
export function chartPath(name: string): string {
  const dir = process.env['BENCH_CHART_DIR'] ?? join(PROJECT_ROOT, 'docs', 'benchmarks');
  return join(dir, `${name}.svg`);
}

/** Writes the chart to {@link chartPath} and says where. */
export function writeChart(name: string, chart: LineChart): void {
  const file = chartPath(name);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, lineChartSvg(chart));
  console.log(`  chart: ${file}`);
}

/** Powers of ten from `lo` to `hi` (both powers of ten), for a log axis. */
export function decades(lo: number, hi: number): number[] {
  const ticks: number[] = [];
  for (let v = lo; v <= hi * 1.0001; v *= 10) ticks.push(v);
  return ticks;
}

/** Tick values for a linear axis from 0 to about `max`, at a round step. */
export function linearTicks(max: number, count = 5): number[] {
  const rough = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(rough || 1));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? magnitude * 10;
  return Array.from({ length: Math.ceil(max / step) + 1 }, (_, i) => i * step);
}
