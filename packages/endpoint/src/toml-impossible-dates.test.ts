import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { impossibleTomlDates } from './toml-impossible-dates.js';

describe('impossibleTomlDates', () => {
  it('finds the dates no calendar has, where they are written, with the day a parser makes of them', () => {
    const text = [
      'a = 2026-02-30',
      'b = 2026-04-31T10:00:00Z',
      'c = [2024-02-29, 2023-02-29]',
      'd = { checked_at = 2026-06-31 }',
      'e = [',
      '  [1900-02-29],',
      ']',
      'f = 2026-09-31 10:00:00',
    ].join('\n');
    // What the finder is for: the parser takes each of them, rolled over to another day.
    expect((parse(text).a as Date).toISOString()).toBe('2026-03-02');
    expect(impossibleTomlDates(text)).toEqual([
      { text: '2026-02-30', line: 1, column: 5, rolledTo: '2026-03-02' },
      { text: '2026-04-31', line: 2, column: 5, rolledTo: '2026-05-01' },
      { text: '2023-02-29', line: 3, column: 18, rolledTo: '2023-03-01' },
      { text: '2026-06-31', line: 4, column: 20, rolledTo: '2026-07-01' },
      { text: '1900-02-29', line: 6, column: 4, rolledTo: '1900-03-01' },
      { text: '2026-09-31', line: 8, column: 5, rolledTo: '2026-10-01' },
    ]);
  });

  it('leaves real days, comments, strings, keys and headers alone', () => {
    const text = [
      'a = 2024-02-29',
      'b = 0000-02-29',
      '# c = 2026-02-31',
      's = "2026-02-31 \\" 2026-02-31"',
      "t = 'x 2026-02-31'",
      'u = """',
      '2026-02-31"""',
      "v = '''2026-02-31'''",
      '2026-02-30 = 1',
      '2026-02-30.x = 1',
      '[2026-02-30]',
      '[[prices.2026-02-31]]',
      'w = 12026-02-30',
      'x = 2026-02-300',
    ].join('\n');
    expect(impossibleTomlDates(text)).toEqual([]);
  });
});
