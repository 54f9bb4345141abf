import { describe, expect, it } from 'vitest';
import {
  CUT_STREAM_CALL,
  GATEWAY_DETECTOR_CALL,
  PRIMARY_JUDGE_CALL,
  REJECTED_CALL,
  TIMED_OUT_CALL,
  UNPRICED_MODEL_CALL,
} from './__fixtures__/call-records.js';
import { journalLineOf } from './journal-line.js';
import { renderReport, useColor } from './render-report.js';
import { ReportAccumulator } from './report-accumulator.js';

const ENDPOINT = { provider: 'primary', baseUrl: 'https://api.primary.example', thinking: false };

function figures(extra: object[] = []) {
  const accumulator = new ReportAccumulator();
  for (const record of [PRIMARY_JUDGE_CALL, GATEWAY_DETECTOR_CALL, REJECTED_CALL, ...extra])
    accumulator.add(journalLineOf(record as typeof PRIMARY_JUDGE_CALL, ENDPOINT, undefined));
  accumulator.skip(9);
  return accumulator.result();
}

describe('renderReport', () => {
  describe('plain (not a TTY, or NO_COLOR)', () => {
    const text = renderReport(figures(), { width: 60 });

    it('prints totals, the tables, errors and skipped lines, USD as exact nine-place decimals', () => {
      expect(text).toContain('  3 calls, 1 failed (1 degradation), 4 attempts');
      // The model_rejected call is refused, not unpriced: its model has a price.
      expect(text).toContain('  cost $0.001410000 (1 call refused before any cost)');
      expect(text).toMatch(/By role\n {2}┌─+┬/);
      expect(text).toMatch(/│ detector +│ +1 │ +0 │ \$0\.001200000 │ +85\.1% │/);
      // A name too long for the width wraps at its spaces: the address stays whole on a line of its own.
      expect(text).toMatch(
        /│ primary +│ +3 │ +1 │ \$0\.001410000 │ 100\.0% │\n {2}│ https:\/\/api\.primary\.example │ +│/,
      );
      expect(renderReport(figures(), { width: 100 })).toContain('│ primary https://api.primary.example │');
      expect(text).toMatch(/│ model_rejected +│ +1 │ +1 │/);
      expect(text).toContain('skipped 1 unreadable line: 9');
      expect(text).toMatch(/Costliest calls\n/);
    });

    it('draws spend per minute as # bars scaled to the width, with no escape codes', () => {
      const chart = text.slice(text.indexOf('Spend per minute')).split('\n').slice(1, 4);
      expect(chart).toEqual([
        expect.stringMatching(/^ {2}08:00 \|#{1,9} +\| \$0\.000210000 {2}1 call$/),
        expect.stringMatching(/^ {2}08:01 \|#+\| \$0\.001200000 {2}1 call$/),
        expect.stringMatching(/^ {2}08:02 \| +\| \$0\.000000000 {2}1 call$/),
      ]);
      for (const line of chart) expect(line.length).toBeLessThanOrEqual(60);
      expect(text).not.toContain('\u001b[');
    });
  });

  describe('estimates and unsettled calls', () => {
    const text = renderReport(figures([CUT_STREAM_CALL, TIMED_OUT_CALL]), { width: 120 });

    it('says under the total how much of it is estimated, a lower bound, and how many calls are unsettled, not in it', () => {
      expect(text).toContain(
        '  cost $0.001500000 (1 call refused before any cost)\n' +
          '  of which estimated: $0.000090000 over 1 call (a lower bound: no final usage arrived, the provider may bill more)\n' +
          '  unsettled: 1 call of unknown cost, not in the total (a budget counted each at its worst case)\n',
      );
    });

    it('gives each role, model and endpoint its estimated part and unsettled calls', () => {
      expect(text).toMatch(/│ model +│ calls │ failed │ +cost │ share │ estimated \(calls\) │ unsettled │/);
      expect(text).toMatch(
        /│ primary-flash +│ +2 │ +1 │ \$0\.000300000 │ +20\.0% │ +\$0\.000090000 \(1\) │ +0 │/,
      );
      expect(text).toMatch(
        /│ primary-v4-pro +│ +2 │ +1 │ \$0\.001200000 │ +80\.0% │ +\$0\.000000000 \(0\) │ +1 │/,
      );
    });

    it('keeps the endpoint address whole beside the added columns, at 80 columns too', () => {
      const narrow = renderReport(figures([CUT_STREAM_CALL, TIMED_OUT_CALL]), { width: 80 });
      const table = narrow.slice(narrow.indexOf('By endpoint'), narrow.indexOf("Prices and the provider's"));
      expect(table).toMatch(
        /│ primary +│ +5 │ +3 │ \$0\.001500000 │ 100\.0% │ +\$0\.000090000 \(1\) │ +1 │\n/,
      );
      expect(table).toMatch(/│ https:\/\/api\.primary\.example │ +│ +│ +│ +│ +│ +│\n/);
      expect(table).not.toContain('…');
    });

    it('marks an estimated cost among the costliest calls as a lower bound', () => {
      expect(text).toMatch(/│ judge +│ primary-flash +│ 2026-11-23T08:04:00\.000Z │ ≥\$0\.000090000 │ +4 │/);
      expect(text).toContain('  ≥: an estimate, a lower bound of what the provider bills');
    });

    it('leaves the columns and lines out of a report with neither', () => {
      const exact = renderReport(figures(), { width: 120 });
      expect(exact).not.toMatch(/estimated|unsettled|≥/);
    });
  });

  it('counts a reply of a model with no price as unpriced, apart from the refused calls', () => {
    const text = renderReport(figures([UNPRICED_MODEL_CALL]), { width: 100 });
    expect(text).toContain(
      '  cost $0.001410000 (1 call unpriced: no price for its model; 1 call refused before any cost)\n',
    );
  });

  it('names the calls journaled with figures clamped', () => {
    const text = renderReport(figures([{ ...PRIMARY_JUDGE_CALL, usage: { prompt_tokens: -1 } }]), {
      width: 100,
    });
    expect(text).toContain(
      "1 call journaled with figures clamped or left out (their lines' clamped, usageError, recordError say which): 4",
    );
  });

  it('escapes newlines and control characters of names, so no line of the file can forge a row', () => {
    const forged = { ...PRIMARY_JUDGE_CALL, role: 'judge\n│ forged │ 1 │\u001b[2J\u009b' };
    const text = renderReport(figures([forged]), { width: 100 });
    expect(text).toContain('judge\\n│ forged │ 1 │\\u001b[2J\\u009b');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters that must not get through.
    expect(text).not.toMatch(/[\u001b\u009b]/);
    expect(text.split('\n').filter((line) => line.startsWith('│ forged'))).toEqual([]);
  });

  it('shows at most 20 rows per table, then how many more', () => {
    const many = Array.from({ length: 30 }, (_, index) => ({ ...PRIMARY_JUDGE_CALL, role: `role-${index}` }));
    const text = renderReport(figures(many), { width: 100 });
    expect(text).toContain('  … and 12 more (see --json)');
  });

  it('uses colour and block characters when asked', () => {
    const text = renderReport(figures(), { color: true });
    expect(text).toContain('\u001b[36m█');
  });

  it('takes the width into account', () => {
    const longest = (text: string) =>
      text
        .slice(text.indexOf('Spend'))
        .split('\n')
        .reduce((most, line) => Math.max(most, line.length), 0);
    expect(longest(renderReport(figures(), { width: 120 }))).toBe(120);
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
