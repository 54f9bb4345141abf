import { describe, expect, it } from 'vitest';
import { spendChart } from './spend-chart.js';

const spend = (costs: number[]) => ({
  bucket: 'minute' as const,
  buckets: costs.map((costUsd, index) => ({
    start: `2026-11-23T09:0${index}:00.000Z`,
    costUsd,
    calls: costUsd > 0 ? 1 : 0,
  })),
});

describe('spendChart', () => {
  it('scales the dearest bucket to the width and the others in proportion, within the width', () => {
    const lines = spendChart(spend([1, 0.5, 0]), { width: 60, color: false });
    expect(lines).toEqual([
      `  09:00 |${'#'.repeat(27)}| $1.000000000  1 call`,
      `  09:01 |${'#'.repeat(14)}${' '.repeat(13)}| $0.500000000  1 call`,
      `  09:02 |${' '.repeat(27)}| $0.000000000  0 calls`,
    ]);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
  });

  it('shows one mark for a bucket that spent anything, however small', () => {
    const [, small] = spendChart(spend([1, 1e-9]), { width: 60, color: false });
    expect(small).toMatch(/\|# +\|/);
  });

  it('draws coloured blocks between box rules in colour', () => {
    const [line] = spendChart(spend([1]), { width: 60, color: true });
    expect(line).toContain(`│\u001b[36m${'█'.repeat(28)}\u001b[39m│`);
  });

  it('says so when there are no calls', () => {
    expect(spendChart({ bucket: 'minute', buckets: [] }, { width: 80, color: false })).toEqual([
      '  (no calls)',
    ]);
  });
});
