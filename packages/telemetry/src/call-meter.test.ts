import { describe, expect, it } from 'vitest';
import {
  GATEWAY_DETECTOR_CALL,
  PRIMARY_JUDGE_CALL,
  RECORDS,
  RECORDS_TOTALS,
} from './__fixtures__/call-records.js';
import { CallMeter, NO_ROLE } from './call-meter.js';

describe('CallMeter', () => {
  describe('after four calls', () => {
    const meter = new CallMeter({ endpoint: 'primary https://api.primary.example' });
    for (const record of RECORDS) meter.afterCall(record);
    const snapshot = meter.snapshot();

    it('totals calls, failures, degradations, attempts, cost and tokens', () => {
      expect(snapshot.totals).toEqual({
        ...RECORDS_TOTALS,
        inputTokens: 3200,
        cacheHitTokens: 2524,
        outputTokens: 800,
        reasoningTokens: 120,
        durationMs: 1500 + 800 + 40 + 4200,
      });
    });

    it('gives the cache-hit ratio over both usage shapes', () => {
      expect(snapshot.cacheHitRatio).toBeCloseTo(2524 / 3200, 12);
    });

    it('breaks down by role, model, endpoint and error kind', () => {
      expect(Object.keys(snapshot.byRole)).toEqual(['detector', 'judge', NO_ROLE]);
      expect(snapshot.byRole.judge).toMatchObject({
        calls: 2,
        failures: 1,
        degradations: 1,
        costUsd: 0.00021,
      });
      expect(snapshot.byModel['primary-flash']).toMatchObject({ calls: 2, failures: 1 });
      expect(snapshot.byModel['primary-v4-pro']).toMatchObject({ calls: 1, costUsd: 0.0012 });
      expect(snapshot.byEndpoint['primary https://api.primary.example']?.calls).toBe(4);
      expect(Object.keys(snapshot.byErrorKind).sort()).toEqual(['model_rejected', 'rate_limited']);
      expect(snapshot.byErrorKind.model_rejected).toMatchObject({ calls: 1, degradations: 1 });
    });

    it('returns plain frozen figures that later calls do not change', () => {
      expect(Object.isFrozen(snapshot.totals)).toBe(true);
      expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
      meter.afterCall(PRIMARY_JUDGE_CALL);
      expect(snapshot.totals.calls).toBe(4);
      expect(meter.snapshot().totals.calls).toBe(5);
    });
  });

  describe('shared across endpoints', () => {
    it('counts each observer under its own endpoint label', () => {
      const meter = new CallMeter();
      meter.forEndpoint('gateway https://gateway.example/api/v1').afterCall?.(GATEWAY_DETECTOR_CALL);
      meter.afterCall(PRIMARY_JUDGE_CALL);
      const { byEndpoint, totals } = meter.snapshot();
      expect(Object.keys(byEndpoint)).toEqual(['gateway https://gateway.example/api/v1', 'default']);
      expect(totals.calls).toBe(2);
    });
  });

  it('is null-ratio before any prompt token', () => {
    expect(new CallMeter().snapshot().cacheHitRatio).toBeNull();
  });

  it('names a bad endpoint label', () => {
    expect(() => new CallMeter({ endpoint: 3 as unknown as string })).toThrow(
      /options.endpoint must be a string/,
    );
  });

  describe('money', () => {
    it('sums 1,000 calls of mixed costs exactly, from costNanoUsd, else from costUsd rounded', () => {
      const meter = new CallMeter();
      let nano = 0;
      let floats = 0;
      for (let index = 0; index < 1000; index += 1) {
        const costNanoUsd = 47_080 + (index % 13) * 1_320 + (index % 3) * 396_000;
        nano += costNanoUsd;
        floats += costNanoUsd / 1e9;
        // Every third record is an older one, with costUsd alone (and float noise in it).
        const record =
          index % 3 === 0
            ? { ...PRIMARY_JUDGE_CALL, costUsd: costNanoUsd / 1e9 + 1e-18, costNanoUsd: undefined as never }
            : { ...GATEWAY_DETECTOR_CALL, costUsd: costNanoUsd / 1e9, costNanoUsd };
        meter.afterCall(record);
      }
      const totals = meter.snapshot().totals;
      expect(totals.costNanoUsd).toBe(nano);
      expect(totals.costUsd).toBe(nano / 1e9);
      expect(String(totals.costUsd)).toMatch(/^\d+\.\d{1,9}$/);
      // The float sum the meter used to keep would show noise.
      expect(String(floats)).not.toMatch(/^\d+\.\d{1,9}$/);
      const byModel = meter.snapshot().byModel;
      expect(
        (byModel['primary-flash']?.costNanoUsd ?? 0) + (byModel['primary-v4-pro']?.costNanoUsd ?? 0),
      ).toBe(nano);
    });
  });
});
