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
  /** How a value shows in tooltips and on the value axis (e.g. as USD). */
  readonly format: (value: number) => string;
  /** How a value shows on the value axis, given the axis's step; default `format`. */
  readonly tick?: (value: number, step: number) => string;
  /** The values are counts: the value axis steps by whole numbers. */
  readonly whole?: boolean;
}

/** The colours of the series, in order; the last is reused past them. */
const PALETTE = ['#2f6fb0', '#e07b28', '#3a9a5b', '#c9423a', '#8a5cb8', '#8c6d3f', '#d266a8', '#7a7a7a'];

const WIDTH = 720;
const HEIGHT = 220;
/** Room on the left of a stacked chart for its value axis's labels (`$0.000500000`). */
const AXIS = 92;
const BOTTOM = 24;
/** The widest a bar gets: one bucket is one bar of this width, not the whole chart. */
const MAX_BAR_WIDTH = 48;

/**
 * The value axis of a chart whose largest value is `most`: a step of 1, 2 or 5 times a power
 * of ten (whole when `whole`), and the top, the first multiple of the step at or above `most`.
 */
export function valueScale(most: number, whole = false): { readonly top: number; readonly step: number } {
  if (!(most > 0) || !Number.isFinite(most)) return { top: 0, step: 0 };
  const rough = most / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const nice = [1, 2, 5, 10].map((factor) => factor * power).find((step) => step >= rough) ?? 10 * power;
  const step = whole ? Math.max(1, Math.ceil(nice)) : Number(nice.toPrecision(12));
  // The quotient of two floats may land a hair above a whole number (0.3 / 0.1): round it first.
  const steps = Math.ceil(Number((most / step).toFixed(9)));
  return { top: Number((steps * step).toPrecision(12)), step };
}

/**
 * A stacked bar chart as inline SVG: one bar per label, each series a colour,
 * a tooltip per segment; a value axis on the left, its top the first round value
 * at or above the tallest bar, so the heights read as amounts; a legend entry per
 * series that has a value (a series with nothing in any bar is left out).
 */
export function stackedBars(
  labels: readonly string[],
  allSeries: readonly StackSeries[],
  options: ChartOptions,
): string {
  const series = allSeries.filter((one) => one.values.some((value) => value > 0));
  const totals = labels.map((_, index) => series.reduce((sum, one) => sum + (one.values[index] ?? 0), 0));
  const most = totals.reduce((max, total) => Math.max(max, total), 0);
  const { top, step } = valueScale(most, options.whole);
  // Room on the right for the last label.
  const slot = (WIDTH - AXIS - 28) / Math.max(1, labels.length);
  const barWidth = Math.min(MAX_BAR_WIDTH, Math.max(1, slot * 0.8));
  const plot = HEIGHT - BOTTOM;
  const height = (value: number) => (value / top) * (plot - 8);
  const parts: string[] = [];
  if (top > 0) {
    for (let tick = 0; tick <= Math.round(top / step); tick++) {
      const value = Number((tick * step).toPrecision(12));
      const y = plot - height(value);
      parts.push(
        `<line x1="${AXIS - 4}" x2="${WIDTH - 20}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" stroke="${tick === 0 ? '#8c96a0' : '#e3e8ee'}"/>`,
        `<text class="tick" x="${AXIS - 8}" y="${(y + 4).toFixed(1)}" text-anchor="end">${escapeHtml((options.tick ?? options.format)(value, step))}</text>`,
      );
    }
  }
  for (const [index, label] of labels.entries()) {
    let y = plot;
    const x = AXIS + index * slot + (slot - barWidth) / 2;
    for (const [seriesIndex, one] of series.entries()) {
      const value = one.values[index] ?? 0;
      if (value <= 0 || top <= 0) continue;
      const shown = Math.max(1, height(value));
      y -= shown;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${shown.toFixed(1)}" fill="${colour(seriesIndex)}"><title>${escapeHtml(`${label} · ${one.name}: ${options.format(value)}`)}</title></rect>`,
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
