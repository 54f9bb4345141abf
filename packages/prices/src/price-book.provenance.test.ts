import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_STALE_AFTER_DAYS, priceAgeDays, STALE_PRICE_WARNING } from './price-age.js';
import { PriceBook } from './price-book.js';

const usage = { prompt_cache_miss_tokens: 1_000_000 };
const prices = { cacheHitPerM: 0.1, inputPerM: 1, outputPerM: 2 };

function staleWarnings(spy: { mock: { calls: unknown[][] } }): string[] {
  return spy.mock.calls
    .filter(([, options]) => (options as { code?: string } | undefined)?.code === STALE_PRICE_WARNING)
    .map(([message]) => String(message));
}

afterEach(() => vi.restoreAllMocks());

describe('priceAgeDays', () => {
  it('counts whole days from the checked date (UTC midnight) to the time', () => {
    expect(priceAgeDays('2026-11-22', '2026-11-22T00:00:00Z')).toBe(0);
    expect(priceAgeDays('2026-11-22', '2026-11-22T23:59:59.999Z')).toBe(0);
    expect(priceAgeDays('2026-11-22', '2026-11-23T00:00:00Z')).toBe(1);
    expect(priceAgeDays('2026-11-22', '2027-02-20T00:00:00Z')).toBe(90);
    expect(priceAgeDays('2026-11-22', '2027-02-21T00:00:00Z')).toBe(91);
    expect(priceAgeDays('2026-11-22', '2026-11-21T12:00:00Z')).toBe(-1);
  });
});

describe('PriceBook provenance', () => {
  it('knows the shipped entries’ source and checked date, following the alias', () => {
    const book = new PriceBook();
    const shipped = { source: "the primary platform's published list prices", checkedAt: '2026-11-22' };
    expect(book.provenanceOf('primary-flash')).toEqual(shipped);
    expect(book.provenanceOf(' primary-chat ')).toEqual(shipped);
    expect(book.provenanceOf('unknown')).toBeNull();
  });

  it('takes checkedAt and source from code entries; an entry without a date has none', () => {
    const book = new PriceBook({
      dated: { ...prices, checkedAt: '2026-10-01', source: 'our invoice of September' },
      'dated-no-source': { ...prices, checkedAt: '2026-10-02' },
      undated: prices,
    });
    expect(book.provenanceOf('dated')).toEqual({
      source: 'our invoice of September',
      checkedAt: '2026-10-01',
    });
    expect(book.provenanceOf('dated-no-source')).toEqual({
      source: 'a PriceBook entry given in code',
      checkedAt: '2026-10-02',
    });
    expect(book.provenanceOf('undated')).toBeNull();
    // Replacing a shipped entry without a date drops the shipped date: it no longer describes the price.
    expect(book.with({ 'primary-flash': prices }).provenanceOf('primary-flash')).toBeNull();
  });

  it('takes checked_at (a string or a TOML date) and source from configuration entries', () => {
    const book = new PriceBook().withConfig({
      'lab-model': {
        cache_hit_per_m: 0,
        input_per_m: 1,
        output_per_m: 2,
        checked_at: '2026-09-30',
        source: 'lab',
      },
      'toml-date': {
        cache_hit_per_m: 0,
        input_per_m: 1,
        output_per_m: 2,
        checked_at: new Date('2026-09-29'),
      },
      'primary-flash': { cache_hit_per_m: 0, input_per_m: 1, output_per_m: 2 },
    });
    expect(book.provenanceOf('lab-model')).toEqual({ source: 'lab', checkedAt: '2026-09-30' });
    expect(book.provenanceOf('toml-date')).toEqual({
      source: `the configuration's [prices."toml-date"]`,
      checkedAt: '2026-09-29',
    });
    expect(book.provenanceOf('primary-flash')).toBeNull();
  });

  it.each([
    [{ checkedAt: '2026-02-30' }, `price "m".checkedAt must be an ISO date, 'YYYY-MM-DD'`],
    [{ checkedAt: '2026-11-22T10:00:00Z' }, `price "m".checkedAt must be an ISO date, 'YYYY-MM-DD'`],
    [{ checkedAt: 20261122 }, `price "m".checkedAt must be an ISO date, 'YYYY-MM-DD'`],
    [{ checkedAt: '2026-11-22', source: '' }, 'price "m".source must be a non-empty string'],
  ])('refuses %j', (provenance, message) => {
    expect(() => new PriceBook({ m: { ...prices, ...provenance } as never })).toThrow(new TypeError(message));
  });

  it('refuses a check date after tomorrow (UTC), naming the field and the date (issue 40.15)', () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const later = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    expect(() => new PriceBook({ m: { ...prices, checkedAt: tomorrow } })).not.toThrow();
    for (const date of [later, '2999-01-01']) {
      expect(() => new PriceBook({ m: { ...prices, checkedAt: date } })).toThrow(
        new RegExp(`^price "m"\\.checkedAt must be a date no later than today, got ${date} \\(today is `),
      );
      expect(() =>
        new PriceBook().withConfig({
          m: { cache_hit_per_m: 0, input_per_m: 1, output_per_m: 2, checked_at: date },
        }),
      ).toThrow(`prices."m".checked_at must be a date no later than today, got ${date}`);
    }
  });

  it.each(['', '  '])('refuses the blank model id %j (issue 40.17)', (model) => {
    expect(() => new PriceBook({ [model]: prices })).toThrow(
      new TypeError(`price ${JSON.stringify(model)}: the model id must not be blank`),
    );
    expect(() =>
      new PriceBook().withConfig({ [model]: { cache_hit_per_m: 0, input_per_m: 1, output_per_m: 2 } }),
    ).toThrow(TypeError);
  });

  it('refuses a bad checked_at in the configuration, naming it', () => {
    expect(() =>
      new PriceBook().withConfig({
        m: { cache_hit_per_m: 0, input_per_m: 1, output_per_m: 2, checked_at: 'soon' },
      }),
    ).toThrow(`prices."m".checked_at must be an ISO date, 'YYYY-MM-DD'`);
  });

  it('writes the checked date of the entry that priced a call on its pricing', () => {
    const book = new PriceBook({ dated: { ...prices, checkedAt: '2026-10-01' }, undated: prices });
    const at = '2026-10-05T00:00:00Z';
    expect(book.priceCall({ model: 'dated', usage, at }).priceCheckedAt).toBe('2026-10-01');
    expect(book.priceCall({ model: 'undated', usage, at }).priceCheckedAt).toBeNull();
    expect(book.priceCall({ model: 'primary-chat', usage, at }).priceCheckedAt).toBe('2026-11-22');
    expect(book.priceCall({ model: 'gateway-model', usage: { cost: 0.5 }, at }).priceCheckedAt).toBeNull();
  });
});

describe('stale prices', () => {
  it('default to 90 days, and the option is checked', () => {
    expect(DEFAULT_STALE_AFTER_DAYS).toBe(90);
    expect(new PriceBook().staleAfterDays).toBe(90);
    expect(new PriceBook({}, { staleAfterDays: 30 }).staleAfterDays).toBe(30);
    expect(new PriceBook({}, { staleAfterDays: 30 }).with({}).withConfig({}).staleAfterDays).toBe(30);
    expect(new PriceBook().withOptions({ staleAfterDays: Infinity }).staleAfterDays).toBe(Infinity);
    for (const bad of [-1, Number.NaN, '90', null])
      expect(() => new PriceBook({}, { staleAfterDays: bad as number })).toThrow(
        'staleAfterDays must be a number of days >= 0 (Infinity: never stale)',
      );
  });

  it('warn once per model when a call is priced from an entry older than staleAfterDays at its time', () => {
    const spy = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const book = new PriceBook({ 'stale-a': { ...prices, checkedAt: '2026-01-01' } });
    // 90 days after 2026-01-01 is 2026-04-01: not older than 90 days yet.
    book.priceCall({ model: 'stale-a', usage, at: '2026-04-01T23:00:00Z' });
    expect(staleWarnings(spy)).toEqual([]);
    book.priceCall({ model: 'stale-a', usage, at: '2026-04-02T00:00:00Z' });
    book.priceCall({ model: 'stale-a', usage, at: '2026-08-02T00:00:00Z' });
    expect(staleWarnings(spy)).toEqual([
      'the price of "stale-a" was last checked 2026-01-01, 91 days before this call (stale after 90): its costs may not be what the provider bills. It comes from the PriceBook entry "stale-a" given in code: check the price and update that entry\'s figures and checkedAt',
    ]);
  });

  it("point at the entry that priced the call: the configuration file's, or the shipped table's by name", () => {
    const spy = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const config = {
      'stale-config': { cache_hit_per_m: 0, input_per_m: 1, output_per_m: 2, checked_at: '2026-01-01' },
    };
    new PriceBook()
      .withConfig(config, { file: 'lab.toml' })
      .priceCall({ model: 'stale-config', usage, at: '2026-06-01' });
    new PriceBook().withConfig({ 'stale-unnamed': config['stale-config'] }).priceCall({
      model: 'stale-unnamed',
      usage,
      at: '2026-06-01',
    });
    new PriceBook().priceCall({ model: 'primary-v4-pro', usage, at: '2030-01-01' });
    expect(staleWarnings(spy)).toEqual([
      'the price of "stale-config" was last checked 2026-01-01, 151 days before this call (stale after 90): its costs may not be what the provider bills. It comes from [prices."stale-config"] of lab.toml: check the price and update that entry\'s figures and checked_at',
      expect.stringMatching(/It comes from \[prices\."stale-unnamed"\] of the configuration: /),
      expect.stringMatching(
        /^the price of "primary-v4-pro" was last checked \d{4}-\d\d-\d\d, \d+ days before this call \(stale after 90\): its costs may not be what the provider bills\. It comes from the shipped price table's entry "primary-v4-pro" \(@switchboard\/prices\): check the price and update @switchboard\/prices, or pin the price you checked in \[prices\."primary-v4-pro"\] of switchboard\.toml with its checked_at$/,
      ),
    ]);
  });

  it('follow the book’s staleAfterDays; Infinity never warns; lookups and undated entries never warn', () => {
    const spy = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const entries = {
      'stale-b': { ...prices, checkedAt: '2026-01-01' },
      'stale-c': { ...prices, checkedAt: '2026-01-01' },
      'stale-undated': prices,
    };
    new PriceBook(entries, { staleAfterDays: Infinity }).priceCall({
      model: 'stale-b',
      usage,
      at: '2036-01-01',
    });
    new PriceBook(entries).priceOf('stale-c', { at: '2036-01-01' });
    new PriceBook(entries).costOf('stale-c', usage, { at: '2036-01-01' });
    new PriceBook(entries).priceCall({ model: 'stale-undated', usage, at: '2036-01-01' });
    expect(staleWarnings(spy)).toEqual([]);
    new PriceBook(entries, { staleAfterDays: 0 }).priceCall({ model: 'stale-b', usage, at: '2026-01-02' });
    expect(staleWarnings(spy)).toHaveLength(1);
    expect(staleWarnings(spy)[0]).toContain(
      '"stale-b" was last checked 2026-01-01, 1 day before this call (stale after 0)',
    );
  });
});
