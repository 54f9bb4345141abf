import { priceOf } from '@switchboard/prices';
import { describe, expect, it } from 'vitest';
import {
  CUT_STREAM_CALL,
  GATEWAY_DETECTOR_CALL,
  PRIMARY_JUDGE_CALL,
  RATE_LIMITED_CALL,
  RECORDS_TOTALS,
  REJECTED_CALL,
  TIMED_OUT_CALL,
  UNPRICED_MODEL_CALL,
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

    it('totals the run, the cost summed exactly in nano-dollars', () => {
      // The cost summed as integer nano-dollars, so without float noise.
      expect(figures.totals).toMatchObject(RECORDS_TOTALS);
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
      const savedNano =
        Math.round(1024 * (flash.inputPerM - flash.cacheHitPerM) * 1000) +
        Math.round(1500 * (pro.inputPerM - pro.cacheHitPerM) * 1000);
      expect(figures.cache).toEqual({
        hitTokens: 2524,
        inputTokens: 3200,
        ratio: 2524 / 3200,
        savedUsd: savedNano / 1e9,
        saved: `0.${String(savedNano).padStart(9, '0')}`,
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
      expect(
        figures.spend.buckets.map(({ start, cost, calls, failures }) => ({ start, cost, calls, failures })),
      ).toEqual([
        { start: '2026-11-23T08:00:00.000Z', cost: '0.000210000', calls: 1, failures: 0 },
        { start: '2026-11-23T08:01:00.000Z', cost: '0.001200000', calls: 1, failures: 0 },
        { start: '2026-11-23T08:02:00.000Z', cost: '0.000000000', calls: 1, failures: 1 },
        { start: '2026-11-23T08:03:00.000Z', cost: '0.000000000', calls: 1, failures: 1 },
      ]);
      expect(figures.spend.buckets[0]?.byRole).toEqual({ judge: '0.000210000' });
      expect(figures.spend.buckets[2]?.errors).toEqual({ model_rejected: 1 });
    });

    it('is plain data', () => {
      expect(JSON.parse(JSON.stringify(figures))).toEqual(figures);
    });
  });

  it('picks the bucket size from the range: at most 60 buckets (an hour each over 3.5 hours)', () => {
    const later = { ...PRIMARY_JUDGE_CALL, at: '2026-11-23T11:30:00.000Z' };
    const figures = accumulate([lineText(PRIMARY_JUDGE_CALL), lineText(later)]);
    expect(figures.spend).toMatchObject({ bucket: '5 minutes', bucketMs: 300_000 });
    expect(figures.spend.buckets).toHaveLength(43);
    expect(figures.spend.buckets.map((bucket) => bucket.calls).filter((calls) => calls > 0)).toEqual([1, 1]);
  });

  it('keeps to 60 buckets over the widest range a journal may have, lines in any order', () => {
    const times = [
      '2050-06-01T00:00:00Z',
      '2000-01-01T00:00:00Z',
      '2099-12-31T23:59:59Z',
      '2026-11-23T08:00:00Z',
    ];
    const figures = accumulate(times.map((at) => lineText({ ...PRIMARY_JUDGE_CALL, at })));
    expect(figures.spend.buckets.length).toBeLessThanOrEqual(60);
    expect(figures.spend.buckets.reduce((sum, bucket) => sum + bucket.calls, 0)).toBe(4);
    expect(figures.totals.cost).toBe('0.000840000');
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

  it('counts a reply of a model with no price as unpriced, and refused calls apart from it', () => {
    const figures = accumulate([...LINES, lineText(UNPRICED_MODEL_CALL)]);
    expect(figures.totals).toMatchObject({ calls: 5, unpricedCalls: 1, refusedCalls: 2, unsettledCalls: 0 });
    expect(figures.byModel['house-model']).toMatchObject({ unpricedCalls: 1, refusedCalls: 0 });
    expect(figures.byModel['primary-old']).toMatchObject({ unpricedCalls: 0, refusedCalls: 1 });
  });

  it('counts cache hits of models the table does not know apart', () => {
    const unknown = { ...PRIMARY_JUDGE_CALL, model: 'house-model', pricedAs: null };
    expect(accumulate([lineText(unknown)]).cache).toMatchObject({ savedUsd: 0, unpricedHitTokens: 1024 });
  });

  describe('estimates and unsettled calls', () => {
    const figures = accumulate([...LINES, lineText(CUT_STREAM_CALL), lineText(TIMED_OUT_CALL)]);

    it('gives the part of the cost that is estimated and the unsettled calls, in total and per model', () => {
      expect(figures.totals).toMatchObject({
        calls: 6,
        costNanoUsd: 1_500_000,
        estimatedCalls: 1,
        estimatedCostNanoUsd: 90_000,
        estimatedCostUsd: 0.00009,
        estimatedCost: '0.000090000',
        unsettledCalls: 1,
        // The timed-out call is unsettled only; the refused ones are not unpriced: their models have prices.
        unpricedCalls: 0,
        refusedCalls: 2,
      });
      expect(figures.byModel['primary-flash']).toMatchObject({
        estimatedCalls: 1,
        estimatedCost: '0.000090000',
        unsettledCalls: 0,
      });
      expect(figures.byModel['primary-v4-pro']).toMatchObject({ estimatedCalls: 0, unsettledCalls: 1 });
      expect(figures.byRole.judge).toMatchObject({ estimatedCalls: 1, estimatedCostNanoUsd: 90_000 });
    });

    it('marks the costliest calls that are estimates', () => {
      expect(figures.costliest.map((call) => [call.line, call.settlement])).toEqual([
        [2, 'exact'],
        [1, 'exact'],
        [5, 'estimate'],
      ]);
    });

    it('derives the settlement of lines written before it existed', () => {
      const old = (record: TelemetryRecord) => {
        const { settlement: _, ...line } = JSON.parse(lineText(record));
        return JSON.stringify(line);
      };
      const derived = accumulate([old(CUT_STREAM_CALL), old(TIMED_OUT_CALL), old(REJECTED_CALL)]);
      expect(derived.totals).toMatchObject({
        estimatedCalls: 1,
        estimatedCostNanoUsd: 90_000,
        unsettledCalls: 1,
      });
    });
  });

  it('counts the lines the journal wrote with figures clamped or left out, by number', () => {
    const figures = accumulate([
      lineText(PRIMARY_JUDGE_CALL),
      lineText({ ...PRIMARY_JUDGE_CALL, usage: { prompt_tokens: -1 } } as never),
      JSON.stringify({ ...JSON.parse(lineText(REJECTED_CALL)), usageError: 'too deep' }),
    ]);
    expect(figures.totals.calls).toBe(3);
    expect(figures.clamped).toEqual({ count: 2, lines: [2, 3] });
  });

  it('reports nothing for no lines', () => {
    const figures = accumulate([]);
    expect(figures).toMatchObject({ from: null, to: null, spend: { buckets: [] }, cache: { ratio: null } });
  });

  it('names a bad since', () => {
    expect(() => new ReportAccumulator({ since: 'last tuesday' })).toThrow(/options.since must be a date/);
  });
});
