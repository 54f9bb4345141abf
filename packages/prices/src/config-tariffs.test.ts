import { afterEach, describe, expect, it, vi } from 'vitest';
import { PriceBook } from './price-book.js';
import { PRICE_DRIFT_WARNING } from './price-drift.js';

const base = { cache_hit_per_m: 0.1, input_per_m: 1, output_per_m: 4, checked_at: '2026-11-20' };
const rise = {
  effective_from: '2027-01-01',
  cache_hit_per_m: 0.15,
  input_per_m: 1.5,
  output_per_m: 6,
  source: "the lab's notice of 2026-11-15",
  checked_at: '2026-11-20',
};
const drifts = (spy: { mock: { calls: unknown[][] } }) =>
  spy.mock.calls.filter(
    ([, options]) => (options as { code?: string } | undefined)?.code === PRICE_DRIFT_WARNING,
  );

afterEach(() => vi.restoreAllMocks());

describe('dated tariffs of a configuration entry', () => {
  const book = new PriceBook().withConfig(
    { 'lab-model': { ...base, tariffs: [rise] } },
    { file: 'lab.toml' },
  );

  it('prices at the entry until effective_from (a date is 00:00 UTC), then at the change', () => {
    expect(book.priceOf('lab-model', { at: '2026-12-31T23:59:59.999Z' })).toEqual({
      model: 'lab-model',
      prices: { cacheHitPerM: 0.1, inputPerM: 1, outputPerM: 4 },
      tariff: null,
    });
    expect(book.priceOf('lab-model', { at: '2027-01-01T00:00:00Z' })).toEqual({
      model: 'lab-model',
      prices: { cacheHitPerM: 0.15, inputPerM: 1.5, outputPerM: 6 },
      tariff: { entry: '2027-01-01T00:00:00.000Z', band: null },
    });
  });

  it('shows a change still to come as announced, with its source, and none after its date', () => {
    expect(book.announcedOf('lab-model', { at: '2026-12-01T00:00:00Z' })).toEqual([
      {
        effectiveFrom: '2027-01-01T00:00:00.000Z',
        prices: { cacheHitPerM: 0.15, inputPerM: 1.5, outputPerM: 6 },
        source: "the lab's notice of 2026-11-15",
        checkedAt: '2026-11-20',
        cancelled: false,
      },
    ]);
    expect(book.announcedOf('lab-model', { at: '2027-01-01T00:00:00Z' })).toEqual([]);
    expect(book.announcedOf('primary-flash')).toEqual([]);
  });

  it('a cancelled change of the same effective_from is never priced, and stays on record', () => {
    const cancel = {
      effective_from: new Date('2027-01-01T00:00:00Z'),
      cancelled: true,
      source: 'called off on 2026-12-10',
    };
    const cancelled = new PriceBook().withConfig({ 'lab-model': { ...base, tariffs: [rise, cancel] } });
    expect(cancelled.priceOf('lab-model', { at: '2027-02-01T00:00:00Z' })?.prices.inputPerM).toBe(1);
    expect(cancelled.announcedOf('lab-model', { at: '2026-12-20T00:00:00Z' })).toEqual([
      {
        effectiveFrom: '2027-01-01T00:00:00.000Z',
        prices: null,
        source: 'called off on 2026-12-10',
        checkedAt: null,
        cancelled: true,
      },
    ]);
  });

  it('refuses a date-time without its offset, a repeated instant and a tariff without prices, naming the field', () => {
    const refuse = (tariffs: unknown[]) => () =>
      new PriceBook().withConfig({ m: { ...base, tariffs } as never });
    expect(refuse([{ ...rise, effective_from: '2027-01-01T00:00:00' }])).toThrow(
      /prices\."m"\.tariffs\[\]\.effective_from must be an ISO date/,
    );
    expect(refuse([rise, rise])).toThrow(
      /another instant than an earlier tariff's \(2027-01-01T00:00:00\.000Z twice\)/,
    );
    expect(refuse([{ effective_from: '2027-01-01' }])).toThrow(
      /prices\."m"\.tariffs\[\]\.cache_hit_per_m must be a finite number >= 0/,
    );
  });

  it('warns SWITCHBOARD_PRICE_DRIFT once when a call uses a change last checked before it took effect', () => {
    const spy = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const drifting = new PriceBook().withConfig(
      { 'drift-model': { ...base, tariffs: [rise] } },
      { file: 'lab.toml' },
    );
    const call = { model: 'drift-model', usage: { prompt_tokens: 1000 } };
    drifting.priceCall({ ...call, at: '2026-12-31T00:00:00Z' });
    expect(drifts(spy)).toEqual([]);
    drifting.priceCall({ ...call, at: '2027-01-02T00:00:00Z' });
    drifting.priceCall({ ...call, at: '2027-01-03T00:00:00Z' });
    expect(drifts(spy)).toHaveLength(1);
    expect(drifts(spy)[0]?.[0]).toContain(
      'the price of "drift-model" from 2027-01-01T00:00:00.000Z was announced (last checked 2026-11-20, before it took effect)',
    );
    expect(drifts(spy)[0]?.[0]).toContain('in [prices."drift-model"] of lab.toml');
  });

  it('does not warn once a check after the date confirmed the change', () => {
    const spy = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const confirmed = new PriceBook().withConfig({
      'confirmed-model': {
        ...base,
        tariffs: [{ ...rise, effective_from: '2026-01-01', checked_at: '2026-01-02' }],
      },
    });
    confirmed.priceCall({
      model: 'confirmed-model',
      usage: { prompt_tokens: 1000 },
      at: '2026-06-01T00:00:00Z',
    });
    expect(drifts(spy)).toEqual([]);
  });
});
