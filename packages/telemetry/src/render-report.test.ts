import { describe, expect, it } from 'vitest';
import { GATEWAY_DETECTOR_CALL, PRIMARY_JUDGE_CALL, REJECTED_CALL } from './__fixtures__/call-records.js';
import { journalLineOf } from './journal-line.js';
import { renderReport, useColor } from './render-report.js';
import { ReportAccumulator } from './report-accumulator.js';

const ENDPOINT = { provider: 'primary', baseUrl: 'https://api.primary.example', thinking: false };

function figures() {
  const accumulator = new ReportAccumulator();
  for (const record of [PRIMARY_JUDGE_CALL, GATEWAY_DETECTOR_CALL, REJECTED_CALL])
    accumulator.add(journalLineOf(record, ENDPOINT, undefined));
  accumulator.skip(9);
  return accumulator.result();
}

describe('renderReport', () => {
  describe('plain (not a TTY, or NO_COLOR)', () => {
    const text = renderReport(figures(), { width: 60 });

    it('prints totals, the tables, errors and skipped lines', () => {
      expect(text).toContain('calls 3, failed 1 (degradations 1), attempts 4');
      expect(text).toContain('cost $0.001410 (unpriced calls: 1)');
      expect(text).toMatch(
        /By role\n {2}name +calls +failed +cost +share\n {2}detector +1 +0 +\$0\.001200 +85\.1%/,
      );
      // Names too long for the width are cut, marked with ~.
      expect(text).toContain('  primary https://api.pri~  ');
      expect(renderReport(figures())).toContain('  primary https://api.primary.example  ');
      expect(text).toMatch(/Errors\n {2}kind +calls +degradations\n {2}model_rejected +1 +1/);
      expect(text).toContain('skipped 1 unreadable lines: 9');
    });

    it('draws spend per minute as # bars scaled to the width, with no escape codes', () => {
      const chart = text.slice(text.indexOf('Spend per minute')).split('\n').slice(1, 4);
      expect(chart).toEqual([
        expect.stringMatching(/^ {2}08:00 \|#{1,9} +\| \$0\.000210$/),
        expect.stringMatching(/^ {2}08:01 \|#+\| \$0\.001200$/),
        expect.stringMatching(/^ {2}08:02 \| +\| +\$0$/),
      ]);
      for (const line of chart) expect(line.length).toBeLessThanOrEqual(60);
      expect(text).not.toContain('\u001b[');
    });
  });

  it('uses colour and block characters when asked', () => {
    const text = renderReport(figures(), { color: true });
    expect(text).toContain('\u001b[36m█');
  });

  it('takes the width into account', () => {
    const wide = renderReport(figures(), { width: 120 });
    const longest = (text: string) =>
      Math.max(
        ...text
          .slice(text.indexOf('Spend'))
          .split('\n')
          .map((line) => line.length),
      );
    expect(longest(wide)).toBe(120);
    expect(longest(renderReport(figures(), { width: 50 }))).toBe(50);
  });
});

describe('useColor', () => {
  it('is on only for a TTY without NO_COLOR', () => {
    expect(useColor({ isTTY: true }, {})).toBe(true);
    expect(useColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColor({ isTTY: false }, {})).toBe(false);
    expect(useColor({}, {})).toBe(false);
  });
});
