import { describe, expect, it } from 'vitest';
import { backoffMs, isRetryableStatus, retryAfterMs } from './retry-policy.js';

describe('retryAfterMs', () => {
  it.each([
    ['retry-after-ms wins', { 'retry-after-ms': '250', 'retry-after': '9' }, 250],
    ['retry-after in seconds', { 'retry-after': '2' }, 2000],
    ['a fraction of a second', { 'retry-after': '0.5' }, 500],
    ['a negative wait counts 0', { 'retry-after': '-3' }, 0],
    [
      'a huge wait is kept as asked, for the cap to judge',
      { 'retry-after': '2147483653' },
      2_147_483_653_000,
    ],
  ])('reads %s', (_, headers, expected) => {
    expect(retryAfterMs(new Headers(headers))).toBe(expected);
  });

  it('reads an HTTP date as the time until then', () => {
    const inAMinute = new Date(Date.now() + 60_000).toUTCString();
    expect(retryAfterMs(new Headers({ 'retry-after': inAMinute }))).toBeGreaterThan(58_000);
  });

  it.each<Record<string, string>>([{}, { 'retry-after': 'soon' }, { 'retry-after': '' }])(
    'names no wait for %j',
    (headers) => {
      expect(retryAfterMs(new Headers(headers))).toBeUndefined();
    },
  );
});

describe('isRetryableStatus', () => {
  it.each([408, 409, 429, 500, 503])('retries %i', (status) => {
    expect(isRetryableStatus(status, undefined)).toBe(true);
  });

  it.each([400, 401, 402, 403, 404, 422])('does not retry %i', (status) => {
    expect(isRetryableStatus(status, undefined)).toBe(false);
  });

  it('lets x-should-retry decide, except for 402', () => {
    expect(isRetryableStatus(400, new Headers({ 'x-should-retry': 'true' }))).toBe(true);
    expect(isRetryableStatus(503, new Headers({ 'x-should-retry': 'false' }))).toBe(false);
    expect(isRetryableStatus(402, new Headers({ 'x-should-retry': 'true' }))).toBe(false);
  });
});

describe('backoffMs', () => {
  const timing = { backoffMs: 500, maxRetryWaitMs: 60_000 };

  it('doubles per attempt, less up to a quarter of jitter', () => {
    for (const [attempt, full] of [
      [1, 500],
      [2, 1000],
      [3, 2000],
    ] as const) {
      const wait = backoffMs(attempt, timing);
      expect(wait).toBeGreaterThanOrEqual(full * 0.75);
      expect(wait).toBeLessThanOrEqual(full);
    }
  });

  it('never waits longer than 8 s or the cap', () => {
    expect(backoffMs(30, timing)).toBeLessThanOrEqual(8000);
    expect(backoffMs(30, { backoffMs: 500, maxRetryWaitMs: 1000 })).toBeLessThanOrEqual(1000);
  });
});
