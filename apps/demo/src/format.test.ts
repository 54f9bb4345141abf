import { describe, expect, it } from 'vitest';
import { formatConfidence, formatNanoUsdText, formatUsd, USD_DECIMALS } from './format.js';
import { plural } from './plural.js';

describe('formatUsd', () => {
  it('prints nine decimals, hiding the float noise of a sum', () => {
    expect(USD_DECIMALS).toBe(9);
    expect(formatUsd(0.000010120000000000001)).toBe('$0.000010120');
    expect(formatUsd(0.1 + 0.2)).toBe('$0.300000000');
  });

  it('puts thousands separators on dollars as on token counts', () => {
    expect(formatUsd(1320)).toBe('$1,320.000000000');
    expect(formatUsd(1234567.5)).toBe('$1,234,567.500000000');
  });

  it('rounds half away from zero at the ninth decimal, and says n/a for no price', () => {
    expect(formatUsd(0.0000000025)).toBe('$0.000000003');
    expect(formatUsd(-0.0000000025)).toBe('-$0.000000003');
    expect(formatUsd(null)).toBe('n/a');
  });
});

describe('formatNanoUsdText', () => {
  it('writes whole nano-dollars exactly, nine decimals and thousands separators', () => {
    expect(formatNanoUsdText(47_080)).toBe('$0.000047080');
    expect(formatNanoUsdText(1_234_567_500_000_001)).toBe('$1,234,567.500000001');
    expect(formatNanoUsdText(-3)).toBe('-$0.000000003');
    expect(formatNanoUsdText(0)).toBe('$0.000000000');
  });
});

describe('formatConfidence', () => {
  it('is a percentage with one decimal', () => {
    expect(formatConfidence(0)).toBe('100.0%');
    expect(formatConfidence(Math.log(0.873))).toBe('87.3%');
  });
});

describe('plural', () => {
  it('says 1 call and 2 calls', () => {
    expect(plural(1, 'call')).toBe('1 call');
    expect(plural(0, 'call')).toBe('0 calls');
    expect(plural(1200, 'malformed line')).toBe('1,200 malformed lines');
  });
});
