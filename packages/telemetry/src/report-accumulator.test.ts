import { priceOf } from '@switchboard/prices';
import { describe, expect, it } from 'vitest';
import {
  GATEWAY_DETECTOR_CALL,
  PRIMARY_JUDGE_CALL,
  RATE_LIMITED_CALL,
  REJECTED_CALL,
} from './__fixtures__/call-records.js';
import { journalEndpoint, journalLineOf } from './journal-line.js';
import { ReportAccumulator } from './report-accumulator.js';
import type { TelemetryRecord } from './telemetry-record.js';

const PRIMARY = journalEndpoint({
  provider: 'primary',
  baseUrl: 'https://api.primary.example',
  thinking: false,
});
const GATEWAY = journalEndpoint({ provider: 'gateway', baseUrl: 'https://gateway.example/api/v1' });

function lineText(record: TelemetryRecord, endpoint = PRIMARY): string {
  return JSON.stringify(journalLineOf(record, endpoint, undefined));
}

function accumulate(lines: string[], options = {}) {
  const accumulator = new ReportAccumulator(options);
  for (const line of lines) accumulator.add(line);
  return accumulator.result();
}

const LINES = [
  lineText(PRIMARY_JUDGE_CALL),
  lineText(GATEWAY_DETECTOR_CALL, GATEWAY),
  lineText(REJECTED_CALL),
  lineText(RATE_LIMITED_CALL),
];

describe('ReportAccumulator', () => {
  describe('a run of four calls', () => {
    const figures = accumulate(LINES);

    it('totals the run, with the cost summed in call order', () => {
      expect(figures.totals).toMatchObject({
        calls: 4,
        failures: 2,
        degradations: 1,
        attempts: 7,
        unpricedCalls: 2,
      });
      // Summed as integer nano-dollars, so without float noise.
      expect(figures.totals.costUsd).toBe(0.00141);
      expect(figures.totals.costNanoUsd).toBe(1_410_000);
      expect(figures.from).toBe('2026-11-23T08:00:10.500Z');
      expect(figures.to).toBe('2026-11-23T08:03:00.000Z');
    });

    it('gives cost and calls by role, model and endpoint', () => {
      expect(Object.keys(figures.byRole)).toEqual(['detector', 'judge', '(none)']);
      expect(figures.byRole.judge).toMatchObject({ calls: 2, costUsd: 0.00021 });
      expect(figures.byModel['primary-v4-pro']).toMatchObject({ calls: 1, costUsd: 0.0012 });
      expect(figures.byEndpoint).toMatchObject({
        'gateway https://gateway.example/api/v1': { calls: 1, costUsd: 0.0012 },
        'primary https://api.primary.example': { calls: 3, costUsd: 0.00021, failures: 2 },
      });
    });

    it('gives the cache-hit ratio and what the cache saved at the table prices of pricedAs', () => {
      const flash = priceOf('primary-flash');
      const pro = priceOf('primary-v4-pro');
      if (flash === null || pro === null) throw new Error('the price table lost a model');
      expect(figures.cache).toEqual({
        hitTokens: 2524,
        inputTokens: 3200,
        ratio: 2524 / 3200,
        savedUsd:
          (1024 * (flash.inputPerM - flash.cacheHitPerM)) / 1e6 +
          (1500 * (pro.inputPerM - pro.cacheHitPerM)) / 1e6,
        unpricedHitTokens: 0,
      });
      expect(figures.cache.savedUsd).toBeGreaterThan(0);
    });

    it('lists error kinds and degradations', () => {
      expect(figures.errors).toEqual({
        model_rejected: { calls: 1, degradations: 1 },
        rate_limited: { calls: 1, degradations: 0 },
      });
      expect(figures.degradations).toBe(1);
    });

    it('gives spend per minute over a short run, empty minutes included', () => {
      expect(figures.spend.bucket).toBe('minute');
      expect(figures.spend.buckets).toEqual([
        { start: '2026-11-23T08:00:00.000Z', costUsd: 0.00021, calls: 1 },
        { start: '2026-11-23T08:01:00.000Z', costUsd: 0.0012, calls: 1 },
        { start: '2026-11-23T08:02:00.000Z', costUsd: 0, calls: 1 },
        { start: '2026-11-23T08:03:00.000Z', costUsd: 0, calls: 1 },
      ]);
    });

    it('is plain data', () => {
      expect(JSON.parse(JSON.stringify(figures))).toEqual(figures);
    });
  });

  it('gives spend per hour over a run longer than two hours', () => {
    const later = { ...PRIMARY_JUDGE_CALL, at: '2026-11-23T11:30:00.000Z' };
    const figures = accumulate([lineText(PRIMARY_JUDGE_CALL), lineText(later)]);
    expect(figures.spend.bucket).toBe('hour');
    expect(figures.spend.buckets.map((bucket) => [bucket.start.slice(11, 13), bucket.calls])).toEqual([
      ['08', 1],
      ['09', 0],
      ['10', 0],
      ['11', 1],
    ]);
  });

  it('filters with since (inclusive) and until (exclusive)', () => {
    const figures = accumulate(LINES, {
      since: '2026-11-23T08:01:30.000Z',
      until: new Date('2026-11-23T08:03:00Z'),
    });
    expect(figures.totals.calls).toBe(2);
    expect(figures.filteredOut).toBe(2);
    expect(Object.keys(figures.byModel)).toEqual(['primary-v4-pro', 'primary-old']);
  });

  it('names skipped lines by number and still counts the others', () => {
    const accumulator = new ReportAccumulator({ maxIssueLines: 2 });
    ['{"broken', lineText(PRIMARY_JUDGE_CALL), '', '42', '{"model":"x","at":"never"}'].forEach(
      (line, index) => {
        accumulator.add(line, index + 1);
      },
    );
    const figures = accumulator.result();
    expect(figures.totals.calls).toBe(1);
    expect(figures.skipped).toEqual({ count: 3, lines: [1, 4] });
  });

  it('counts cache hits of models the table does not know apart', () => {
    const unknown = { ...PRIMARY_JUDGE_CALL, model: 'house-model', pricedAs: null };
    expect(accumulate([lineText(unknown)]).cache).toMatchObject({ savedUsd: 0, unpricedHitTokens: 1024 });
  });

  it('reports nothing for no lines', () => {
    const figures = accumulate([]);
    expect(figures).toMatchObject({ from: null, to: null, spend: { buckets: [] }, cache: { ratio: null } });
  });

  it('names a bad since', () => {
    expect(() => new ReportAccumulator({ since: 'last tuesday' })).toThrow(/options.since must be a date/);
  });
});
