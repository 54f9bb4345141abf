import { describe, expect, it } from 'vitest';
import { stackedBars, valueScale } from './svg-charts.js';

const count = { title: 'Errors', format: (value: number) => `${value} calls`, whole: true };

/** The attribute values of every element named `tag` in `svg`. */
function attributes(svg: string, tag: string, name: string): number[] {
  return [...svg.matchAll(new RegExp(`<${tag} [^>]*\\b${name}="([\\d.]+)"`, 'g'))].map((match) =>
    Number(match[1]),
  );
}

describe('valueScale', () => {
  it('rounds the top up to a multiple of a 1-2-5 step, whole for counts', () => {
    expect(valueScale(1, true)).toEqual({ top: 1, step: 1 });
    expect(valueScale(3, true)).toEqual({ top: 3, step: 1 });
    expect(valueScale(100, true)).toEqual({ top: 100, step: 50 });
    expect(valueScale(0.001037688)).toEqual({ top: 0.0015, step: 0.0005 });
    expect(valueScale(0.3)).toEqual({ top: 0.3, step: 0.1 });
    expect(valueScale(0)).toEqual({ top: 0, step: 0 });
  });
});

describe('stackedBars', () => {
  it('draws one bucket as one narrow bar against a value axis that says how much it is', () => {
    const one = stackedBars(['06:00'], [{ name: 'auth', values: [1] }], count);
    const hundred = stackedBars(['06:00'], [{ name: 'auth', values: [100] }], count);
    expect(attributes(one, 'rect', 'width')).toEqual([48]);
    // The axis's labels: 0 and 1 for one error, up to 100 for a hundred; the bars alone look the same.
    expect([...one.matchAll(/class="tick"[^>]*>([^<]*)</g)].map((match) => match[1])).toEqual([
      '0 calls',
      '1 calls',
    ]);
    expect([...hundred.matchAll(/class="tick"[^>]*>([^<]*)</g)].map((match) => match[1])).toEqual([
      '0 calls',
      '50 calls',
      '100 calls',
    ]);
  });

  it('scales the bars to the axis top, not to the tallest bar', () => {
    const svg = stackedBars(['a', 'b'], [{ name: 'spend', values: [0.7, 0.35] }], {
      title: 'Spend',
      format: String,
    });
    const [tall, short] = attributes(svg, 'rect', 'height');
    // Top 0.8 (steps of 0.2): 0.7 reaches 7/8 of the plot's height, 0.35 half of that.
    expect(tall).toBeCloseTo((0.7 / 0.8) * (220 - 24 - 8), 0);
    expect(short).toBeCloseTo((tall ?? 0) / 2, 0);
  });

  it('lists in the legend only the series that have a value', () => {
    const svg = stackedBars(
      ['a', 'b'],
      [
        { name: 'judge', values: [1, 2] },
        { name: '(others)', values: [0, 0] },
      ],
      count,
    );
    expect(svg).toContain('</span>judge</li>');
    expect(svg).not.toContain('(others)');
  });
});
