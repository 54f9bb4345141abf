import { escapeHtml } from './escape-html.js';

/** One series of a stacked bar chart. */
export interface StackSeries {
  readonly name: string;
  /** A value per bar. */
  readonly values: readonly number[];
}

/** Options shared by the charts. */
export interface ChartOptions {
  /** Accessible name of the chart. */
  readonly title: string;
  /** How a value shows in tooltips (e.g. as USD). */
  readonly format: (value: number) => string;
}

/** The colours of the series, in order; the last is reused past them. */
const PALETTE = ['#2f6fb0', '#e07b28', '#3a9a5b', '#c9423a', '#8a5cb8', '#8c6d3f', '#d266a8', '#7a7a7a'];

const WIDTH = 720;
const HEIGHT = 220;
const LEFT = 8;
const BOTTOM = 24;

/**
 * A stacked bar chart as inline SVG: one bar per label, each series a colour,
 * a tooltip per segment; bars scale to the tallest.
 */
export function stackedBars(
  labels: readonly string[],
  series: readonly StackSeries[],
  options: ChartOptions,
): string {
  const totals = labels.map((_, index) => series.reduce((sum, one) => sum + (one.values[index] ?? 0), 0));
  const most = totals.reduce((max, total) => Math.max(max, total), 0);
  // Room on the right for the last label.
  const slot = (WIDTH - LEFT - 28) / Math.max(1, labels.length);
  const barWidth = Math.max(1, slot * 0.8);
  const plot = HEIGHT - BOTTOM;
  const parts: string[] = [];
  for (const [index, label] of labels.entries()) {
    let y = plot;
    const x = LEFT + index * slot + (slot - barWidth) / 2;
    for (const [seriesIndex, one] of series.entries()) {
      const value = one.values[index] ?? 0;
      if (value <= 0 || most <= 0) continue;
      const height = Math.max(1, (value / most) * (plot - 8));
      y -= height;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${height.toFixed(1)}" fill="${colour(seriesIndex)}"><title>${escapeHtml(`${label} · ${one.name}: ${options.format(value)}`)}</title></rect>`,
      );
    }
    if (labels.length <= 12 || index % Math.ceil(labels.length / 12) === 0)
      parts.push(
        `<text x="${(x + barWidth / 2).toFixed(1)}" y="${HEIGHT - 8}" text-anchor="middle">${escapeHtml(label)}</text>`,
      );
  }
  if (most <= 0)
    parts.push(`<text x="${WIDTH / 2}" y="${plot / 2}" text-anchor="middle">nothing to show</text>`);
  return svg(options.title, parts, HEIGHT) + legend(series.map((one) => one.name));
}

/** A horizontal bar per row, the longest the largest value; the value written beside it. */
export function horizontalBars(
  rows: ReadonlyArray<readonly [name: string, value: number]>,
  options: ChartOptions,
): string {
  const most = rows.reduce((max, [, value]) => Math.max(max, value), 0);
  const rowHeight = 22;
  const height = Math.max(rowHeight, rows.length * rowHeight) + 4;
  const nameWidth = 220;
  const barSpace = WIDTH - nameWidth - 150;
  const parts = rows.map(([name, value], index) => {
    const y = index * rowHeight + 4;
    const width = most > 0 ? Math.max(value > 0 ? 1 : 0, (value / most) * barSpace) : 0;
    const shown = name.length > 32 ? `${name.slice(0, 31)}…` : name;
    return (
      `<text x="${nameWidth - 6}" y="${y + 14}" text-anchor="end">${escapeHtml(shown)}<title>${escapeHtml(name)}</title></text>` +
      `<rect x="${nameWidth}" y="${y + 3}" width="${width.toFixed(1)}" height="${rowHeight - 8}" fill="${colour(index)}"><title>${escapeHtml(`${name}: ${options.format(value)}`)}</title></rect>` +
      `<text x="${(nameWidth + width + 6).toFixed(1)}" y="${y + 14}">${escapeHtml(options.format(value))}</text>`
    );
  });
  if (rows.length === 0)
    parts.push(`<text x="${WIDTH / 2}" y="16" text-anchor="middle">nothing to show</text>`);
  return svg(options.title, parts, height);
}

function svg(title: string, parts: readonly string[], height: number): string {
  return `<svg role="img" aria-label="${escapeHtml(title)}" viewBox="0 0 ${WIDTH} ${height}" width="100%" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg"><title>${escapeHtml(title)}</title>${parts.join('')}</svg>`;
}

function legend(names: readonly string[]): string {
  if (names.length === 0) return '';
  return `<ul class="legend">${names
    .map(
      (name, index) =>
        `<li><span class="swatch" style="background:${colour(index)}"></span>${escapeHtml(name)}</li>`,
    )
    .join('')}</ul>`;
}

function colour(index: number): string {
  return PALETTE[Math.min(index, PALETTE.length - 1)] as string;
}
