// A latency-distribution chart as hand-written SVG: latency (ms) against
// percentile, the percentile axis stretched toward the tail the way
// HdrHistogram plots are (x = log10(1 / (1 - p))), one line per series.
import type { Distribution } from './report.ts';

const WIDTH = 720;
const HEIGHT = 360;
const MARGIN = { left: 60, right: 160, top: 30, bottom: 40 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b'];
const TICKS = [50, 90, 99, 99.9];

function tailX(percentile: number): number {
  return Math.log10(1 / Math.max(1e-4, 1 - percentile / 100));
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** An SVG document plotting each distribution; `title` names the benchmark. */
export function latencyChartSvg(title: string, series: readonly Distribution[]): string {
  const points = series.flatMap((s) => s.points).filter((p) => Number.isFinite(p.ms));
  const maxMs = Math.max(0.001, ...points.map((p) => p.ms)) * 1.1;
  const maxX = tailX(Math.max(99.9, ...points.map((p) => p.percentile)));
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (p: number): number => MARGIN.left + (tailX(p) / maxX) * plotW;
  const y = (ms: number): number => MARGIN.top + plotH - (ms / maxMs) * plotH;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${MARGIN.left}" y="18" font-size="14">${escapeXml(title)}</text>`,
    `<line x1="${MARGIN.left}" y1="${MARGIN.top + plotH}" x2="${MARGIN.left + plotW}" y2="${MARGIN.top + plotH}" stroke="black"/>`,
    `<line x1="${MARGIN.left}" y1="${MARGIN.top}" x2="${MARGIN.left}" y2="${MARGIN.top + plotH}" stroke="black"/>`,
    `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 6}" text-anchor="middle">percentile</text>`,
    `<text x="14" y="${MARGIN.top + plotH / 2}" transform="rotate(-90 14 ${MARGIN.top + plotH / 2})" text-anchor="middle">latency (ms)</text>`,
  ];
  for (const tick of TICKS) {
    parts.push(`<text x="${x(tick).toFixed(1)}" y="${MARGIN.top + plotH + 16}" text-anchor="middle">p${tick}</text>`);
  }
  for (const fraction of [0, 0.25, 0.5, 0.75, 1]) {
    const ms = maxMs * fraction;
    parts.push(`<text x="${MARGIN.left - 6}" y="${(y(ms) + 4).toFixed(1)}" text-anchor="end">${ms.toPrecision(2)}</text>`);
  }
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length] ?? 'black';
    const path = s.points.filter((p) => Number.isFinite(p.ms))
      .map((p) => `${x(p.percentile).toFixed(1)},${y(p.ms).toFixed(1)}`).join(' ');
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${path}"/>`);
    parts.push(`<text x="${WIDTH - MARGIN.right + 10}" y="${MARGIN.top + 16 * (i + 1)}" fill="${color}">${escapeXml(s.label)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
