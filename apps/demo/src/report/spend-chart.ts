import type { ReportFigures } from '@switchboard/telemetry';
import { colors, formatUsd } from '../format.js';
import { plural } from '../plural.js';

/** Options of {@link spendChart}. */
export interface SpendChartOptions {
  /** Columns the chart may fill; the bars take what the labels and amounts leave. */
  readonly width: number;
  /** Block characters in colour; else `#` bars between `|` rules, for pipes, files and NO_COLOR. */
  readonly color: boolean;
}

/** Spend over time as one bar per minute (or hour), the dearest bucket filling the width. */
export function spendChart(spend: ReportFigures['spend'], options: SpendChartOptions): string[] {
  const { buckets } = spend;
  if (buckets.length === 0) return ['  (no calls)'];
  const paint = colors(options.color);
  // A minute bar is labelled HH:MM, an hour bar MM-DD HH: the run's day is in the report's heading.
  const labels = buckets.map((bucket) =>
    spend.bucket === 'hour' ? bucket.start.slice(5, 13).replace('T', ' ') : bucket.start.slice(11, 16),
  );
  const amounts = buckets.map((bucket) => `${formatUsd(bucket.costUsd)}  ${plural(bucket.calls, 'call')}`);
  const labelWidth = Math.max(...labels.map((label) => label.length));
  const amountWidth = Math.max(...amounts.map((amount) => amount.length));
  const barWidth = Math.max(10, options.width - labelWidth - amountWidth - 7);
  const dearest = Math.max(...buckets.map((bucket) => bucket.costUsd));
  const [full, rule] = options.color ? ['█', '│'] : ['#', '|'];
  return buckets.map((bucket, index) => {
    // A bucket that spent anything shows at least one mark, however small beside the dearest.
    const share = dearest > 0 ? bucket.costUsd / dearest : 0;
    const length = bucket.costUsd > 0 ? Math.max(1, Math.round(share * barWidth)) : 0;
    const bar = paint.cyan(full.repeat(length)) + ' '.repeat(barWidth - length);
    return `  ${labels[index]?.padEnd(labelWidth)} ${rule}${bar}${rule} ${amounts[index]}`.trimEnd();
  });
}
